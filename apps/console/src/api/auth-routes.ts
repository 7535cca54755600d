/**
 * GET /api/v1/auth/me, POST /api/v1/auth/logout (spec §4.3) and local sign-in POST /api/v1/auth/login.
 * Sign-in and sign-out are audited.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { LocalSignIn } from "../auth/local-signin.ts";
import type { Principal } from "../auth/principal.ts";
import type { SessionManager } from "../auth/sessions.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { ConsoleError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import type { NewAuditRow } from "../store/store.ts";
import { LOGIN_PATH } from "./config-route.ts";
import { type AccessResolver, requireCaller } from "./context.ts";

/** Body of GET /api/v1/auth/me and of a successful sign-in. */
export interface MeView {
  subject: string;
  displayName: string;
  groups: string[];
  roles: string[];
  permissions: string[];
  /** how the caller was identified */
  via: Principal["kind"];
}

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

const loginBody = z.strictObject({
  username: z.string().max(256),
  password: z.string().max(1024),
});

/** Registers the auth routes. */
export function addAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  app.get("/api/v1/auth/me", async (req): Promise<MeView> => {
    const p = requireCaller(req);
    const access = await deps.resolveAccess(req, p);
    return me(p, access.roles, [...access.permissions].sort());
  });

  app.post("/api/v1/auth/logout", async (req, reply) => {
    const p = req.consoleAuth.principal;
    if (p?.kind === "session" && p.sessionIdHash && deps.sessions) {
      await deps.sessions.end(p.sessionIdHash);
      await deps.audit({
        subject: p.subject,
        subjectDisplay: p.display,
        action: "POST /api/v1/auth/logout",
        outcome: "allowed",
        remoteAddr: req.clientAddr,
      });
    }
    deps.clearSessionCookies(reply);
    return reply.code(204).send();
  });

  app.post(LOGIN_PATH, async (req, reply) => {
    const signIn = deps.signIn;
    if (deps.config.auth.mode !== "local" || !signIn) throw new NotFoundError();
    const parsed = loginBody.safeParse(req.body);
    if (!parsed.success) throw new InvalidInputError("body must be {username, password} strings");
    const { username, password } = parsed.data;
    const base = { action: `POST ${LOGIN_PATH}`, remoteAddr: req.clientAddr };
    try {
      const { user, session } = await signIn.signIn(username, password, req.clientAddr);
      deps.metrics.signIns.inc({ mode: "local", result: "success" });
      await deps.audit({
        ...base,
        subject: session.record.subject,
        subjectDisplay: user.username,
        outcome: "allowed",
      });
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
      if (e instanceof ConsoleError) {
        const result = e.code === "rate_limited" ? "limited" : "denied";
        deps.metrics.signIns.inc({ mode: "local", result });
        // the attempted username is a label, never identity
        if (e.code !== "invalid_input") {
          await deps.audit({
            ...base,
            subject: null,
            subjectDisplay: username.slice(0, 256),
            outcome: "denied",
          });
        }
      }
      throw e;
    }
  });
}

function me(p: Principal, roles: string[], permissions: string[]): MeView {
  return { subject: p.subject, displayName: p.display, groups: p.groups, roles, permissions, via: p.kind };
}
