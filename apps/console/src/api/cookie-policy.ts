/**
 * Cookies the console sets (spec §5.4) and the CSRF check on state-changing requests. A request carried by a
 * session cookie must echo the session's CSRF token in X-CSRF-Token. Header mode (the proxy's own cookie is ambient
 * too) uses a double-submit cookie, issued on the first safe request. Bearer-token and anonymous requests carry no
 * ambient credential and need no CSRF token.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { CSRF_HEADER, csrfCookieName, parseCookies, serializeCookie } from "../auth/cookies.ts";
import type { Principal } from "../auth/principal.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { CsrfError } from "../errors.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Sets, clears and checks the console's cookies. */
export class CookiePolicy {
  private readonly session: string;
  private readonly csrf: string;

  constructor(private readonly config: ConsoleConfig) {
    this.session = config.auth.session.cookieName;
    this.csrf = csrfCookieName(this.session);
  }

  /** CsrfError when a state-changing request lacks the matching token; issues the header-mode cookie. */
  check(req: FastifyRequest, reply: FastifyReply, p: Principal): void {
    const safe = SAFE_METHODS.has(req.method);
    const sent = req.headers[CSRF_HEADER];
    const given = typeof sent === "string" ? sent : "";
    if (p.kind === "session") {
      if (!safe && !(given !== "" && p.csrf && sameSecret(given, p.csrf))) throw new CsrfError();
      return;
    }
    if (p.kind === "header") {
      const cookie = parseCookies(req.headers.cookie).get(this.csrf) ?? "";
      if (safe) {
        if (cookie === "")
          this.set(reply, this.csrf, randomBytes(24).toString("base64url"), this.ttlS(), false);
        return;
      }
      if (cookie === "" || !sameSecret(given, cookie)) throw new CsrfError();
    }
  }

  /** Appends one Set-Cookie (Path=/, SameSite=Lax, Secure per config); maxAgeSeconds 0 clears. */
  set(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number, httpOnly = true): void {
    const cookie = serializeCookie(name, value, {
      secure: this.config.auth.session.secure,
      maxAgeSeconds,
      httpOnly,
    });
    this.replaceAll(reply, [...this.pending(reply), cookie]);
  }

  /** Sets the session cookie (HttpOnly) and its CSRF cookie (readable by the SPA). */
  setSession(reply: FastifyReply, sessionId: string, csrf: string): void {
    this.set(reply, this.session, sessionId, this.ttlS(), true);
    this.set(reply, this.csrf, csrf, this.ttlS(), false);
  }

  /** Clears both cookies, replacing any set earlier in this reply. */
  clearSession(reply: FastifyReply): void {
    const keep = this.pending(reply).filter(
      (c) => !c.startsWith(`${this.session}=`) && !c.startsWith(`${this.csrf}=`),
    );
    this.replaceAll(reply, keep);
    this.set(reply, this.session, "", 0, true);
    this.set(reply, this.csrf, "", 0, false);
  }

  private ttlS(): number {
    return this.config.auth.session.ttl / 1000;
  }

  /**
   * Writes the reply's Set-Cookie list as `cookies`, one line per cookie name (a later line for a name replaces an
   * earlier one). Fastify's reply.header appends to an existing Set-Cookie, so the old list is removed first.
   */
  private replaceAll(reply: FastifyReply, cookies: readonly string[]): void {
    const byName = new Map<string, string>();
    for (const c of cookies) {
      const name = c.slice(0, c.indexOf("="));
      byName.delete(name);
      byName.set(name, c);
    }
    reply.removeHeader("set-cookie");
    if (byName.size > 0) reply.header("set-cookie", [...byName.values()]);
  }

  private pending(reply: FastifyReply): string[] {
    const prev = reply.getHeader("set-cookie");
    return prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  }
}
