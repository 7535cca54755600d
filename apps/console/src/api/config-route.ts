/** GET /api/v1/config: the console's configuration as the SPA needs it, and which backends exist (spec §4.3). */
import type { FastifyInstance } from "fastify";
import { CSRF_HEADER, csrfCookieName } from "../auth/cookies.ts";
import { MIN_PASSWORD_LENGTH } from "../auth/password.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { requireCaller } from "./context.ts";

/** Path that begins an OIDC sign-in (spec §4.3: a path ending `/oidc/start`). */
export const OIDC_START_PATH = "/api/v1/auth/oidc/start";

/** Path of local sign-in. The spec does not name it; this is the console's choice. */
export const LOGIN_PATH = "/api/v1/auth/login";

/** Body of GET /api/v1/config. */
export interface ConsoleConfigView {
  version: string;
  auth: {
    mode: ConsoleConfig["auth"]["mode"];
    /** anonymous mode: every page shows a warning banner */
    anonymousBanner: boolean;
    anonymousRole: string;
    /** where the sign-in form posts (local mode) */
    loginPath: string | null;
    /** where the browser goes to sign in (oidc mode); query `returnTo` names the page to come back to */
    oidcStartPath: string | null;
    csrfCookie: string;
    csrfHeader: string;
    passwordMinLength: number;
    sessionTtlSeconds: number;
    sessionIdleTimeoutSeconds: number;
  };
  backends: {
    database: boolean;
    databaseKind: "postgres" | "pglite" | null;
    /** event history and other history features need the database */
    history: boolean;
    redis: boolean;
    prometheus: boolean;
    controller: boolean;
    kubernetesContext: boolean;
  };
}

/** Registers GET /api/v1/config (any caller: a session, header identity, token, or anonymous). */
export function addConfigRoute(
  app: FastifyInstance,
  deps: { config: ConsoleConfig; version: string; databaseKind: () => "postgres" | "pglite" | null },
): void {
  app.get("/api/v1/config", async (req): Promise<ConsoleConfigView> => {
    requireCaller(req);
    const c = deps.config;
    const kind = deps.databaseKind();
    return {
      version: deps.version,
      auth: {
        mode: c.auth.mode,
        anonymousBanner: c.auth.mode === "anonymous",
        anonymousRole: c.auth.anonymous.role,
        loginPath: c.auth.mode === "local" ? LOGIN_PATH : null,
        oidcStartPath: c.auth.mode === "oidc" ? OIDC_START_PATH : null,
        csrfCookie: csrfCookieName(c.auth.session.cookieName),
        csrfHeader: CSRF_HEADER,
        passwordMinLength: MIN_PASSWORD_LENGTH,
        sessionTtlSeconds: c.auth.session.ttl / 1000,
        sessionIdleTimeoutSeconds: c.auth.session.idleTimeout / 1000,
      },
      backends: {
        database: kind !== null,
        databaseKind: kind,
        history: kind !== null,
        redis: c.redis.url !== "" || c.redis.urlFile !== "",
        prometheus: c.prometheus.url !== "",
        controller: c.controller.url !== "",
        kubernetesContext: c.kubernetesContext.enabled,
      },
    };
  });
}
