/** Handler of GET /api/v1/config (contract: @svc/contract console-config.ts; any caller). */
import * as c from "@svc/contract";
import { CSRF_HEADER, csrfCookieName } from "../auth/cookies.ts";
import { MIN_PASSWORD_LENGTH } from "../auth/password.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import type { AddRoute } from "./register.ts";

/** Registers GET /api/v1/config. */
export function addConfigRoute(
  add: AddRoute,
  deps: { config: ConsoleConfig; version: string; databaseKind: () => "postgres" | "pglite" | null },
): void {
  add(c.getConfig, async () => {
    const cfg = deps.config;
    const kind = deps.databaseKind();
    return {
      version: deps.version,
      auth: {
        mode: cfg.auth.mode,
        anonymousBanner: cfg.auth.mode === "anonymous",
        anonymousRole: cfg.auth.anonymous.role,
        loginPath: cfg.auth.mode === "local" ? c.LOGIN_PATH : null,
        oidcStartPath: cfg.auth.mode === "oidc" ? c.OIDC_START_PATH : null,
        csrfCookie: csrfCookieName(cfg.auth.session.cookieName),
        csrfHeader: CSRF_HEADER,
        passwordMinLength: MIN_PASSWORD_LENGTH,
        sessionTtlSeconds: cfg.auth.session.ttl / 1000,
        sessionIdleTimeoutSeconds: cfg.auth.session.idleTimeout / 1000,
      },
      backends: {
        database: kind !== null,
        databaseKind: kind,
        history: kind !== null,
        redis: cfg.redis.url !== "" || cfg.redis.urlFile !== "",
        prometheus: cfg.prometheus.url !== "",
        controller: cfg.controller.url !== "",
        kubernetesContext: cfg.kubernetesContext.enabled,
      },
    };
  });
}
