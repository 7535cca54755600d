/**
 * Cross-key startup refusals of the console config (spec §5.2, §5.4, §5.7, §8.1, §8.4). They run on a config the
 * schema accepted; load.ts repairs invalid leaves first so that every problem of a file is reported at once.
 */
import { OIDC_CALLBACK_PATH } from "@svc/contract";
import type { RuleIssue } from "@svc/core";
import type { ConsoleConfig } from "./schema.ts";

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** True when the config names a database (url, urlFile or urlEnv). */
export function hasDatabase(cfg: ConsoleConfig): boolean {
  return cfg.database.url !== "" || cfg.database.urlFile !== "" || cfg.database.urlEnv !== "";
}

/** True when the config names a shared store (redis url, urlFile or urlEnv). */
export function hasRedis(cfg: ConsoleConfig): boolean {
  return cfg.redis.url !== "" || cfg.redis.urlFile !== "" || cfg.redis.urlEnv !== "";
}

/**
 * The rule evaluator's base URL without trailing slash: `alerts.evaluatorUrl`, else `prometheus.url` (Prometheus
 * evaluates its own rules); "" without a metrics server.
 */
export function evaluatorUrl(cfg: ConsoleConfig): string {
  return (cfg.alerts.evaluatorUrl !== "" ? cfg.alerts.evaluatorUrl : cfg.prometheus.url).replace(/\/+$/, "");
}

/** The keys of `section` among url, urlFile and urlEnv that are set. */
function sources(
  section: "database" | "redis",
  v: { url: string; urlFile: string; urlEnv: string },
): string[] {
  return (["url", "urlFile", "urlEnv"] as const).filter((k) => v[k] !== "").map((k) => `${section}.${k}`);
}

/** Checks a database URL's form: postgres(ql)://..., pglite:memory or pglite:<dir>. Undefined when fine. */
export function databaseUrlProblem(url: string): string | undefined {
  if (url.startsWith("pglite:"))
    return url.length > "pglite:".length ? undefined : "pglite: needs a directory or memory";
  try {
    const u = new URL(url);
    if (u.protocol === "postgres:" || u.protocol === "postgresql:") return undefined;
  } catch {
    // fall through
  }
  return "must be postgres://..., postgresql://..., pglite:<dir> or pglite:memory";
}

/** Checks the cross-key rules; returns every violation. */
export function applyRules(cfg: ConsoleConfig): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const issue = (path: string, message: string, ...related: string[]) =>
    issues.push({ path, message, related });
  const { auth } = cfg;

  if (cfg.httpPort === cfg.metricsPort)
    issue("metricsPort", `must differ from httpPort (${cfg.httpPort})`, "httpPort");

  if (cfg.alerts.evaluatorUrl !== "" && cfg.prometheus.url === "")
    issue(
      "alerts.evaluatorUrl",
      "needs prometheus.url (the query endpoint the rules are read through)",
      "prometheus.url",
    );

  if (auth.mode === "header" && auth.header.trustedProxyCIDRs.length === 0) {
    issue("auth.header.trustedProxyCIDRs", "must not be empty when auth.mode is header", "auth.mode");
  }
  const cookie = auth.session.cookieName;
  if (!COOKIE_NAME.test(cookie))
    issue("auth.session.cookieName", `must be a cookie name token, got ${JSON.stringify(cookie)}`);
  else if (cookie.startsWith("__Host-") && !auth.session.secure) {
    issue(
      "auth.session.cookieName",
      `a __Host- cookie name needs auth.session.secure: true; plain-HTTP deployments need a name without the __Host- prefix, got ${JSON.stringify(cookie)}`,
      "auth.session.secure",
    );
  }
  if ((auth.mode === "local" || auth.mode === "oidc") && !hasDatabase(cfg)) {
    issue(
      "database.url",
      `required when auth.mode is ${auth.mode} (set database.url, database.urlFile or database.urlEnv)`,
      "auth.mode",
    );
  }
  if (auth.mode === "local") {
    const { bootstrapAdmin, bootstrapPasswordFile } = auth.local;
    if ((bootstrapAdmin === "") !== (bootstrapPasswordFile === "")) {
      issue(
        bootstrapAdmin === "" ? "auth.local.bootstrapAdmin" : "auth.local.bootstrapPasswordFile",
        "bootstrapAdmin and bootstrapPasswordFile go together",
        "auth.local",
      );
    }
  }
  if (auth.mode === "oidc") oidcRules(cfg, issue);
  for (const [group, role] of Object.entries(auth.groupRoles)) {
    if (role === "") issue(`auth.groupRoles.${group}`, "must name a role");
  }

  const dbSources = sources("database", cfg.database);
  if (dbSources.length > 1) {
    issue(
      dbSources[1] ?? "",
      `set one of database.url, database.urlFile, database.urlEnv (got ${dbSources.join(", ")})`,
      ...dbSources,
    );
  } else if (cfg.database.url !== "") {
    const why = databaseUrlProblem(cfg.database.url);
    if (why) issue("database.url", why);
  }
  const redisSources = sources("redis", cfg.redis);
  if (redisSources.length > 1) {
    issue(
      redisSources[1] ?? "",
      `set one of redis.url, redis.urlFile, redis.urlEnv (got ${redisSources.join(", ")})`,
      ...redisSources,
    );
  } else if (cfg.redis.url !== "" && !/^rediss?:\/\//.test(cfg.redis.url)) {
    issue("redis.url", `must be redis://... or rediss://..., got ${JSON.stringify(cfg.redis.url)}`);
  }
  if (cfg.replicas > 1 && !hasRedis(cfg)) {
    issue("redis.url", `required when replicas is more than 1 (replicas: ${cfg.replicas})`, "replicas");
  }
  return issues;
}

function oidcRules(
  cfg: ConsoleConfig,
  issue: (path: string, message: string, ...related: string[]) => void,
): void {
  const o = cfg.auth.oidc;
  let issuer: URL | undefined;
  try {
    issuer = new URL(o.issuer);
  } catch {
    issuer = undefined;
  }
  if (issuer?.protocol !== "https:") {
    issue("auth.oidc.issuer", `must be an absolute https URL, got ${JSON.stringify(o.issuer)}`);
  } else if (o.issuer.endsWith("/")) {
    issue("auth.oidc.issuer", `must not end with a slash, got ${JSON.stringify(o.issuer)}`);
  }
  if (o.clientID === "") issue("auth.oidc.clientID", "required when auth.mode is oidc");
  if (o.clientSecretFile === "") issue("auth.oidc.clientSecretFile", "required when auth.mode is oidc");
  let redirect: URL | undefined;
  try {
    redirect = new URL(o.redirectURL);
  } catch {
    redirect = undefined;
  }
  if (!redirect || (redirect.protocol !== "https:" && redirect.protocol !== "http:")) {
    issue("auth.oidc.redirectURL", `must be an absolute URL, got ${JSON.stringify(o.redirectURL)}`);
  } else if (!redirect.pathname.endsWith(OIDC_CALLBACK_PATH)) {
    issue(
      "auth.oidc.redirectURL",
      `path must end in ${OIDC_CALLBACK_PATH}, got ${JSON.stringify(o.redirectURL)}`,
    );
  }
  if (!o.scopes.includes("openid")) issue("auth.oidc.scopes", "must include openid");
}
