/**
 * Handlers of GET /api/v1/auth/me, POST /api/v1/auth/logout (spec §4.3) and local sign-in POST
 * /api/v1/auth/login (contract: @svc/contract auth.ts). Sign-in and sign-out are audited.
 */
import * as c from "@svc/contract";
import type { FastifyReply } from "fastify";
import type { LocalSignIn } from "../auth/local-signin.ts";
import type { Principal } from "../auth/principal.ts";
import type { SessionManager } from "../auth/sessions.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { ConsoleError } from "../errors.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { AccessResolver } from "./context.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the auth routes. */
export interface AuthRouteDeps {
  config: ConsoleConfig;
  resolveAccess: AccessResolver;
  sessions?: SessionManager;
  signIn?: LocalSignIn;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
  metrics: ConsoleMetrics;
  setSessionCookies: (reply: FastifyReply, sessionId: string, csrf: string) => void;
  clearSessionCookies: (reply: FastifyReply) => void;
}

/** Registers the auth routes. */
export function addAuthRoutes(add: AddRoute, deps: AuthRouteDeps): void {
  add(c.getMe, async ({ req, principal: p }) => {
    const access = await deps.resolveAccess(req, p);
    return me(p, access.roles, [...access.permissions].sort());
  });

  // the row first: a sign-out whose row cannot be written is refused (503) and the session stays
  add(c.logout, async ({ reply, principal: p, actor }) => {
    if (p?.kind === "session" && p.sessionIdHash && deps.sessions) {
      await deps.audit({ ...actor, outcome: "allowed" });
      await deps.sessions.end(p.sessionIdHash);
    }
    deps.clearSessionCookies(reply);
  });

  add(
    c.login,
    async ({ req, reply, body: { username, password } }) => {
      const signIn = deps.signIn;
      if (!signIn) throw new Error("login route without local sign-in");
      const base = { action: `POST ${c.LOGIN_PATH}`, remoteAddr: req.clientAddr };
      try {
        const { user, session } = await signIn.signIn(username, password, req.clientAddr);
        try {
          await deps.audit({
            ...base,
            subject: session.record.subject,
            subjectDisplay: user.username,
            outcome: "allowed",
          });
        } catch (e) {
          // a sign-in whose row cannot be written does not happen: its session ends at once
          await deps.sessions?.end(session.record.idHash);
          throw e;
        }
        deps.metrics.signIns.inc({ mode: "local", result: "success" });
        deps.setSessionCookies(reply, session.id, session.csrf);
        const p: Principal = {
          kind: "session",
          subject: session.record.subject,
          display: user.username,
          groups: [],
        };
        const access = await deps.resolveAccess(req, p);
        return me(p, access.roles, [...access.permissions].sort());
      } catch (e) {
        if (e instanceof ConsoleError && e.code !== "unavailable") {
          const result = e.code === "rate_limited" ? "limited" : "denied";
          deps.metrics.signIns.inc({ mode: "local", result });
          // the attempted username is a label, never identity
          if (e.code !== "invalid_input") {
            // best effort: the refusal stands whether or not its row is written
            await deps
              .audit({ ...base, subject: null, subjectDisplay: username.slice(0, 256), outcome: "denied" })
              .catch(() => undefined);
          }
        }
        throw e;
      }
    },
    { available: () => deps.config.auth.mode === "local" && deps.signIn !== undefined },
  );
}

function me(p: Principal, roles: string[], permissions: string[]): c.MeView {
  return { subject: p.subject, displayName: p.display, groups: p.groups, roles, permissions, via: p.kind };
}
