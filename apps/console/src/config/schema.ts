/**
 * The zod schema of the console configuration: the spec's `console.*` keys (§5, §8.1, §8.4) without the
 * `console.` prefix (load.ts lifts the file's `console:` section to the top level), plus `database.*` and `redis.*`. Every mapping is strict; every leaf has its spec default.
 * Cross-key refusals live in rules.ts.
 *
 * Listeners: `httpPort` (8080) serves the API, the SPA and, for backward compatibility, `/metrics`;
 * `metricsPort` (9091) serves `/metrics`, `/healthz`, `/readyz`. The two must differ.
 */
import { configFields, LOG_FORMATS, LOG_LEVELS } from "@svc/core";
import type * as core from "zod/v4/core";
import { BUILTIN_ROLES } from "../rbac/roles.ts";
import { optionalHttpUrl } from "./fields.ts";

const { bool, cidr, duration, int, list, oneOf, port, record, section, str } = configFields;

/** Sign-in modes of spec §5.2. */
export const AUTH_MODES = ["anonymous", "local", "header", "oidc"] as const;
/** Default session cookie name (spec §5.4). */
export const DEFAULT_SESSION_COOKIE = "__Host-svc_session";

const SEC = 1000;
const HOUR = 3_600_000;
const MAXINT = Number.MAX_SAFE_INTEGER;

/** Built-in role, or "" (no role). */
const roleOrEmpty = () => oneOf(["", ...BUILTIN_ROLES]);

/** The console configuration schema. */
export const consoleConfigSchema = section({
  httpPort: port().default(8080),
  metricsPort: port().default(9091),
  logLevel: oneOf(LOG_LEVELS, true).default("info"),
  logFormat: oneOf(LOG_FORMATS).default("json"),
  /** replicas of the console Deployment; more than 1 requires redis */
  replicas: int(1, 1000, "must be at least 1").default(1),
  controller: section({
    url: optionalHttpUrl(true).default(""),
    timeout: duration(1).default(10 * SEC),
    grpcAddress: str().default(""),
  }),
  prometheus: section({
    url: optionalHttpUrl(true).default(""),
    queryTimeout: duration(1).default(30 * SEC),
    maxRange: duration(1).default(24 * HOUR),
    maxResponseBytes: int(1, MAXINT, "must be a positive integer").default(8_388_608),
  }),
  auth: section({
    mode: oneOf(AUTH_MODES).default("anonymous"),
    anonymous: section({ role: roleOrEmpty().default("viewer") }),
    defaultRole: roleOrEmpty().default(""),
    /** group -> role (an allow-list, not revocable through the API) */
    groupRoles: record(str()).default({}),
    session: section({
      ttl: duration(1000, "must be at least 1s").default(12 * HOUR),
      idleTimeout: duration().default(HOUR),
      cookieName: str().default(DEFAULT_SESSION_COOKIE),
      secure: bool().default(true),
    }),
    local: section({
      /** username created while the users table is empty */
      bootstrapAdmin: str().default(""),
      /** file holding the bootstrap admin's password (mounted secret) */
      bootstrapPasswordFile: str().default(""),
    }),
    header: section({ trustedProxyCIDRs: list(cidr()).default([]) }),
    oidc: section({
      issuer: str().default(""),
      clientID: str().default(""),
      redirectURL: str().default(""),
      /** file holding the client secret (the `console-oidc-client-secret` key of existingSecret) */
      clientSecretFile: str().default(""),
      scopes: list(str()).default(["openid", "profile", "email", "groups"]),
      usernameClaim: str().default("preferred_username"),
      groupsClaim: str().default("groups"),
    }),
  }),
  clientAddress: section({ trustedProxyCIDRs: list(cidr()).default([]) }),
  websocket: section({
    maxConnections: int(0, MAXINT, "must be 0 (no cap) or positive").default(1024),
    maxConnectionsPerAddress: int(0, MAXINT, "must be 0 (no cap) or positive").default(256),
    maxConnectionsPerSubject: int(0, MAXINT, "must be 0 (no cap) or positive").default(32),
  }),
  webhooks: section({
    encryptionKeyFile: str().default(""),
    alertPollInterval: duration(1000, "must be at least 1s").default(30 * SEC),
  }),
  rateLimit: section({ loginPerMinute: int(1, 1_000_000, "must be at least 1").default(5) }),
  kubernetesContext: section({ enabled: bool().default(false) }),
  alerts: section({
    /** directory the console writes its Prometheus rule file into ("" = rules kept, not written) */
    ruleDirectory: str().default(""),
    /**
     * the rule evaluator's base URL when it is not the query endpoint (vmalert, Thanos Ruler, the Mimir ruler):
     * current alerts (GET /api/v1/alerts) and rule reloads (POST /-/reload) go there; "" = `prometheus.url`
     */
    evaluatorUrl: optionalHttpUrl(true).default(""),
    /** labels of the PrometheusRule object (kubernetesContext.enabled) the operator's ruleSelector matches */
    prometheusRuleLabels: record(str()).default({}),
  }),
  database: section({
    /** postgres://..., postgresql://..., pglite:<dir> or pglite:memory; all three "" = in-memory mode */
    url: str().default(""),
    /** file holding the DSN (the chart mounts `database.existingSecret` here) */
    urlFile: str().default(""),
    /** name of an environment variable holding the DSN */
    urlEnv: str().default(""),
    /** history retention in days; 0 keeps everything */
    retentionDays: int(0, 100_000, "must be 0 or positive").default(90),
  }),
  redis: section({
    /** redis://... or rediss://... */
    url: str().default(""),
    /** file holding the URL (the chart mounts `redis.existingSecret` here) */
    urlFile: str().default(""),
    /** name of an environment variable holding the URL */
    urlEnv: str().default(""),
    dialTimeout: duration(1).default(5 * SEC),
  }),
});

/** The loaded console configuration (durations in milliseconds). */
export type ConsoleConfig = core.output<typeof consoleConfigSchema>;
