/**
 * Renders docs/configuration-console.md from the console schema's defaults and CONSOLE_KEY_DOCS
 * (`npm run gen:config-doc:console`; doc.test.ts fails when the file or the key list drifts).
 */
import { CONSOLE_SECTION_KEYS, parseConsoleConfig } from "./load.ts";

/** What the reference says about one key (its file name: `console.*` for the console section's keys). */
export interface KeyDoc {
  description: string;
  /** the default is a duration in milliseconds, shown as `10s` */
  duration?: true;
  /** a cross-key rule or range, beyond the type */
  rule?: string;
}

/** Every leaf of the console configuration, by the key path the file uses. */
export const CONSOLE_KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  httpPort: {
    description: "HTTP API, the web app, the WebSocket `/ws`, and `/metrics` (backward compatibility)",
    rule: "1-65535, differs from metricsPort",
  },
  metricsPort: { description: "`/metrics`, `/healthz`, `/readyz`", rule: "1-65535" },
  logLevel: { description: "debug, info, warn or error (any case); env `SVC_LOG_LEVEL`" },
  logFormat: { description: "json or text; env `SVC_LOG_FORMAT`" },
  "console.replicas": {
    description: "replicas of the console Deployment",
    rule: "more than 1 requires a redis URL",
  },
  "console.controller.url": {
    description: "the controller's HTTP API",
    rule: "absolute http(s) URL, no trailing slash",
  },
  "console.controller.timeout": { description: "timeout of a controller request", duration: true },
  "console.controller.grpcAddress": {
    description:
      "host:port of the controller's gRPC listener: the event stream (feed, history, Time Machine)",
  },
  "console.prometheus.url": {
    description: "Prometheus HTTP API; required for Matrix, Metrics and query pages",
    rule: "absolute http(s) URL, no trailing slash",
  },
  "console.prometheus.queryTimeout": { description: "timeout of a PromQL query", duration: true },
  "console.prometheus.maxRange": { description: "longest range a query page may ask for", duration: true },
  "console.prometheus.maxResponseBytes": { description: "largest Prometheus response read" },
  "console.auth.mode": {
    description: "anonymous, local, header or oidc (spec §5.2)",
    rule: "local and oidc need a database",
  },
  "console.auth.anonymous.role": { description: "role of every caller in anonymous mode (empty: none)" },
  "console.auth.defaultRole": { description: "role of a signed-in user no group maps (empty: none)" },
  "console.auth.groupRoles": {
    description: "group -> role; an allow-list the API cannot revoke",
    rule: "every value names a role",
  },
  "console.auth.session.ttl": { description: "session lifetime", duration: true, rule: "at least 1s" },
  "console.auth.session.idleTimeout": {
    description: "idle time that ends a session, within a further min(15s, a third of it) (0: never)",
    duration: true,
  },
  "console.auth.session.cookieName": {
    description: "session cookie name",
    rule: "a __Host- name needs secure: true",
  },
  "console.auth.session.secure": { description: "Secure cookie attribute (HTTPS only)" },
  "console.auth.local.bootstrapAdmin": {
    description: "user created while the users table is empty",
    rule: "with bootstrapPasswordFile",
  },
  "console.auth.local.bootstrapPasswordFile": {
    description: "file holding the bootstrap administrator's password (a mounted Secret)",
  },
  "console.auth.header.trustedProxyCIDRs": {
    description: "proxies whose identity headers are believed",
    rule: "not empty in header mode",
  },
  "console.auth.oidc.issuer": { description: "OIDC issuer URL", rule: "https, no trailing slash" },
  "console.auth.oidc.clientID": { description: "OIDC client id", rule: "required in oidc mode" },
  "console.auth.oidc.redirectURL": {
    description: "the console's callback URL",
    rule: "ends with /api/v1/auth/oidc/callback",
  },
  "console.auth.oidc.clientSecretFile": {
    description: "file holding the client secret (a mounted Secret)",
    rule: "required in oidc mode",
  },
  "console.auth.oidc.scopes": { description: "scopes asked for", rule: "includes openid" },
  "console.auth.oidc.usernameClaim": { description: "claim naming the user" },
  "console.auth.oidc.groupsClaim": { description: "claim listing the user's groups" },
  "console.clientAddress.trustedProxyCIDRs": {
    description: "proxies whose X-Forwarded-For is believed for the client address",
  },
  "console.websocket.maxConnections": { description: "open WebSockets per replica (0: no cap)" },
  "console.websocket.maxConnectionsPerAddress": { description: "per client address (0: no cap)" },
  "console.websocket.maxConnectionsPerSubject": { description: "per signed-in subject (0: no cap)" },
  "console.webhooks.encryptionKeyFile": {
    description: "file holding the key that encrypts webhook secrets at rest",
  },
  "console.webhooks.alertPollInterval": {
    description: "how often alert states are read for webhooks",
    duration: true,
    rule: "at least 1s",
  },
  "console.rateLimit.loginPerMinute": { description: "sign-in attempts per minute and client" },
  "console.kubernetesContext.enabled": {
    description:
      "watch cluster Events beside the measurements (10-minute relist backstop), and write the alert rules as the PrometheusRule `svc-console-alerts` in the console's namespace",
  },
  "console.alerts.ruleDirectory": {
    description:
      "directory the console writes its Prometheus alert rule file into (`svc-console-alerts.yml`; Prometheus loads `<dir>/*.yml` and runs with --web.enable-lifecycle); empty: rules are kept but not written",
  },
  "console.alerts.evaluatorUrl": {
    description:
      "base URL of the rule evaluator when it is not the query endpoint (vmalert, Thanos Ruler, the Mimir ruler's Prometheus prefix): the console reads current alerts from its GET /api/v1/alerts and asks it to reload the rule file (POST /-/reload); empty: console.prometheus.url",
  },
  "console.alerts.prometheusRuleLabels": {
    description:
      "labels of the `svc-console-alerts` PrometheusRule object the console writes with kubernetesContext.enabled (the Prometheus Operator's ruleSelector must match them)",
  },
  "database.url": {
    description:
      "postgres://..., postgresql://..., pglite:<dir> or pglite:memory; none of url, urlFile, urlEnv: in-memory mode (no history, no auth)",
    rule: "one of url, urlFile, urlEnv",
  },
  "database.urlFile": {
    description: "file holding the DSN (the chart mounts `database.existingSecret` here)",
  },
  "database.urlEnv": { description: "name of an environment variable holding the DSN" },
  "database.retentionDays": { description: "history retention in days (0: keep everything)" },
  "redis.url": {
    description: "redis://... or rediss://...: the shared store and bus of several replicas",
    rule: "one of url, urlFile, urlEnv",
  },
  "redis.urlFile": { description: "file holding the URL (the chart mounts `redis.existingSecret` here)" },
  "redis.urlEnv": { description: "name of an environment variable holding the URL" },
  "redis.dialTimeout": {
    description: "connect and handshake timeout; unreachable at start: in-process bus per replica",
    duration: true,
  },
};

/** Leaves of a loaded configuration by their file key path; empty mappings and lists are leaves. */
export function consoleLeaves(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const isMap = value !== null && typeof value === "object" && !Array.isArray(value);
  // mappings of the user's keys (groupRoles, prometheusRuleLabels) are one leaf
  if (!isMap || prefix.endsWith("groupRoles") || prefix.endsWith("prometheusRuleLabels")) {
    out.set(prefix, value);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const key =
      prefix === "" && CONSOLE_SECTION_KEYS.includes(k)
        ? `console.${k}`
        : prefix === ""
          ? k
          : `${prefix}.${k}`;
    for (const [p, leaf] of consoleLeaves(v, key)) out.set(p, leaf);
  }
  return out;
}

function duration(ms: number): string {
  if (ms === 0) return "0";
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function renderDefault(doc: KeyDoc | undefined, value: unknown): string {
  if (doc?.duration && typeof value === "number") return `\`${duration(value)}\``;
  if (value === "") return "empty";
  return `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
}

const HEADER = `# Console configuration reference

<!-- Generated by \`npm run gen:config-doc:console\` from apps/console/src/config (schema.ts, doc.ts). Do not edit. -->

The console's YAML file (\`svc console --config FILE\`, else \`SVC_CONFIG\`) holds the spec's \`console.*\` keys
(§5, §8.1, §8.4) under \`console:\`, the store keys \`database.*\` and \`redis.*\`, and the listener and log keys
at the top level. The file is strict: an unknown key fails startup; every error names the key path as the file
spells it (\`console.auth.mode: ...\`) and all errors of a file are reported at once. Durations are strings with a
unit (\`250ms\`, \`10s\`, \`1h\`). Secrets never sit in the file: it names files (mounted Secrets) or environment
variables holding them.

**Deprecated (2.5.0, accepted until the next release):** the \`console.*\` keys without the prefix at the top level
(\`auth:\` instead of \`console.auth:\`). Each logs a deprecation warning; a key given both ways is an error.
\`console.enabled\` (a chart value) is accepted and ignored.

| Key | Default | Rule | Description |
|---|---|---|---|
`;

/** The full Markdown text of docs/configuration-console.md. */
export function renderConsoleConfigDoc(): string {
  let out = HEADER;
  for (const [key, value] of consoleLeaves(parseConsoleConfig("", {}).config)) {
    const doc = CONSOLE_KEY_DOCS[key];
    const cell = (s: string) => s.replace(/\|/g, "\\|");
    out += `| \`${key}\` | ${cell(renderDefault(doc, value))} | ${cell(doc?.rule ?? "")} | ${cell(doc?.description ?? "")} |\n`;
  }
  return out;
}
