/**
 * Authentication of one request (spec §5.2, §5.6): a bearer token, else the session cookie, else the mode's
 * ambient identity (trusted-proxy headers in header mode, the anonymous caller in anonymous mode).
 */
import { createHash } from "node:crypto";
import type { Cidr } from "@svc/core";
import { cidrContains } from "@svc/core";
import type { ConsoleConfig } from "../config/schema.ts";
import { UnauthenticatedError } from "../errors.ts";
import type { Store } from "../store/store.ts";
import type { AuthCache } from "./auth-cache.ts";
import { normalizeIp } from "./client-address.ts";
import { parseCookies } from "./cookies.ts";
import type { OidcRefresher } from "./oidc/refresh.ts";
import { ANONYMOUS, type Principal } from "./principal.ts";
import type { SessionManager } from "./sessions.ts";

/** What a request presents, independent of the HTTP framework. */
export interface RequestCredentials {
  /** TCP peer address */
  peer: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

// A token's last-use stamp is written at most this often, to keep reads from becoming writes.
const LAST_USED_EVERY_MS = 60_000;

/** Outcome: a caller, or none with the reason to answer 401 with when a route needs one. */
export interface AuthResult {
  principal?: Principal;
  problem?: UnauthenticatedError;
  /** the presented session cookie named no live session; clear it */
  clearSession?: boolean;
}

/** Hash under which an API token secret is stored. */
export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

function header(h: RequestCredentials["headers"], name: string): string | undefined {
  const v = Object.hasOwn(h, name) ? h[name] : undefined;
  return Array.isArray(v) ? v[0] : v;
}

/** Dependencies of the Authenticator. */
export interface AuthenticatorDeps {
  config: ConsoleConfig;
  store?: Store;
  sessions?: SessionManager;
  headerProxies: readonly Cidr[];
  /** refreshes OIDC sessions when due (oidc mode) */
  oidc?: OidcRefresher;
  now: () => number;
  /** keeps users and tokens for a short while (revocations empty it) */
  cache?: AuthCache;
}

/** Decides who is calling. */
export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  /** Authenticates; store failures propagate (the edge answers 503). */
  async authenticate(req: RequestCredentials): Promise<AuthResult> {
    const { config, store, sessions } = this.deps;
    const authz = header(req.headers, "authorization");
    if (authz !== undefined && /^bearer\s/i.test(authz)) return this.token(authz.slice(7).trim());

    const cookie = parseCookies(header(req.headers, "cookie")).get(config.auth.session.cookieName);
    if (cookie !== undefined && sessions && store) {
      const found = await sessions.lookup(cookie);
      if (found.state === "active") {
        const r = found.record;
        if (r.subject.startsWith("local:")) {
          const user = await this.user(store, r.subject.slice("local:".length));
          // a deleted, disabled or re-enabled-since user's sessions end on their next request
          if (!user?.enabled || r.createdAt < user.reenabledAt) {
            await sessions.end(r.idHash);
            return { problem: new UnauthenticatedError("session ended"), clearSession: true };
          }
        }
        if (r.subject.startsWith("oidc:") && this.deps.oidc && !(await this.deps.oidc.check(r)))
          return {
            problem: new UnauthenticatedError("session ended by the identity provider"),
            clearSession: true,
          };
        return {
          principal: {
            kind: "session",
            subject: r.subject,
            display: r.display,
            groups: r.groups,
            sessionIdHash: r.idHash,
            csrf: r.csrf,
          },
        };
      }
      if (found.state === "expired")
        return { problem: new UnauthenticatedError("session expired"), clearSession: true };
      if (config.auth.mode !== "anonymous")
        return { problem: new UnauthenticatedError("no such session"), clearSession: true };
    }

    if (config.auth.mode === "header") return this.fromHeaders(req);
    if (config.auth.mode === "anonymous") return { principal: ANONYMOUS };
    return { problem: new UnauthenticatedError() };
  }

  private async token(secret: string): Promise<AuthResult> {
    const { store, now } = this.deps;
    if (!store || secret === "") return { problem: new UnauthenticatedError("invalid token") };
    const hash = hashTokenSecret(secret);
    const c = this.deps.cache;
    const t = c
      ? await c.through(c.tokens, hash, () => store.getTokenByHash(hash))
      : await store.getTokenByHash(hash);
    if (!t || t.revokedAt !== null || (t.expiresAt !== null && now() >= t.expiresAt)) {
      return { problem: new UnauthenticatedError("invalid token") };
    }
    const t0 = now();
    if (t.lastUsedAt === null || t0 - t.lastUsedAt >= LAST_USED_EVERY_MS) {
      await store.markTokenUsed(t.id, t0);
      t.lastUsedAt = t0;
    }
    return { principal: { kind: "token", subject: `token:${t.id}`, display: t.name, groups: [] } };
  }

  private user(store: Store, id: string) {
    const c = this.deps.cache;
    return c ? c.through(c.users, id, () => store.getUser(id)) : store.getUser(id);
  }

  private fromHeaders(req: RequestCredentials): AuthResult {
    const peer = normalizeIp(req.peer);
    if (!this.deps.headerProxies.some((c) => cidrContains(c, peer))) {
      return { problem: new UnauthenticatedError("identity headers accepted only from a trusted proxy") };
    }
    const user = header(req.headers, "x-remote-user")?.trim();
    if (!user) return { problem: new UnauthenticatedError("no X-Remote-User from the proxy") };
    const groups = (header(req.headers, "x-remote-groups") ?? "")
      .split(",")
      .map((g) => g.trim())
      .filter((g) => g !== "");
    return { principal: { kind: "header", subject: `header:${user}`, display: user, groups } };
  }
}
