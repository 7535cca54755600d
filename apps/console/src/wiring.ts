/**
 * Builds the console's services from its options: where sessions and budgets live (database and in-process, or
 * the shared Redis store when one is given), and the mode's sign-in machinery (local sign-in and user admin, or
 * the OIDC relying party and its session refresher).
 */
import { readFile } from "node:fs/promises";
import type { AuthCache } from "./auth/auth-cache.ts";
import { LocalSignIn, type LoginLimit } from "./auth/local-signin.ts";
import { OidcClient } from "./auth/oidc/client.ts";
import { OidcRefresher } from "./auth/oidc/refresh.ts";
import { type BudgetFactory, inProcessBudgets } from "./auth/rate-limit.ts";
import { type SessionBackend, SessionManager } from "./auth/sessions.ts";
import type { ConsoleLogger } from "./log.ts";
import { RbacAdmin } from "./rbac/rbac-admin.ts";
import type { ConsoleServerOptions } from "./server-options.ts";
import { redisBudgets } from "./shared/redis-budgets.ts";
import { RedisSessions } from "./shared/redis-sessions.ts";
import type { Store } from "./store/store.ts";
import { TokenAdmin } from "./tokens/token-admin.ts";
import { UserAdmin } from "./users/user-admin.ts";

/** The services a ConsoleServer routes to; undefined where the mode or the missing database rules one out. */
export interface ConsoleServices {
  budgets: BudgetFactory;
  sessions?: SessionManager;
  signIn?: LocalSignIn;
  users?: UserAdmin;
  rbac?: RbacAdmin;
  tokens?: TokenAdmin;
  oidc?: OidcClient;
  refresher?: OidcRefresher;
}

/** Builds the services over `store` (undefined = in-memory mode). */
export function buildServices(
  opts: ConsoleServerOptions,
  store: Store | undefined,
  now: () => number,
  log: ConsoleLogger,
  onLimited: (limit: LoginLimit) => void,
  cache?: AuthCache,
): ConsoleServices {
  const { auth } = opts.config;
  const prefix = opts.redisPrefix ?? "svc:console:";
  const local = inProcessBudgets(now);
  const budgets = opts.redis
    ? redisBudgets(opts.redis, prefix, local, (e) => log.warn({ err: String(e) }, "shared budget failed"))
    : local;
  if (!store) return { budgets };
  const backend: SessionBackend = opts.redis
    ? new RedisSessions(opts.redis, prefix, auth.session.idleTimeout)
    : store;
  const sessions = new SessionManager(
    backend,
    { ttlMs: auth.session.ttl, idleMs: auth.session.idleTimeout },
    now,
    cache,
  );
  const out: ConsoleServices = {
    budgets,
    sessions,
    rbac: new RbacAdmin(store, auth.defaultRole, now),
    tokens: new TokenAdmin(store, now),
  };
  if (auth.mode === "local") {
    out.signIn = new LocalSignIn({
      store,
      sessions,
      loginPerMinute: opts.config.rateLimit.loginPerMinute,
      now,
      budgets,
      onLimited,
    });
    out.users = new UserAdmin(store, auth.defaultRole, now, opts.redis ? sessions : undefined);
  }
  if (auth.mode === "oidc") {
    const o = auth.oidc;
    out.oidc = new OidcClient(
      {
        issuer: opts.unsafeOidcTestIssuer ?? o.issuer,
        clientId: o.clientID,
        redirectUrl: o.redirectURL,
        scopes: o.scopes,
        usernameClaim: o.usernameClaim,
        groupsClaim: o.groupsClaim,
        secret: async () => (await readFile(o.clientSecretFile, "utf8")).trim(),
        allowInsecureRequests: opts.unsafeOidcTestIssuer !== undefined,
      },
      now,
    );
    out.refresher = new OidcRefresher(out.oidc, sessions, now, log);
  }
  return out;
}
