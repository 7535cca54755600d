/**
 * Alert rules (spec §2.12, §3.4, §4.3, §7): each rule becomes one Prometheus alerting rule labelled `svc_rule_id`,
 * written by the console into a rule file Prometheus loads. Reading needs `alerts:read`; writing and previewing a
 * draft need `alerts:manage`. Rule paths other than the preview are the console's choice (§4.3 leaves them open).
 * Every write is audited; all need the database.
 *
 * The alert name is derived from the rule name (`alertNameOf`): two rules whose names collapse to one alert name
 * cannot both exist (422 `alert name collision`).
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, noteText, text } from "./strings.ts";

/** Longest PromQL expression of a rule. */
export const ALERT_EXPR_MAX = 4096;
/** Longest `for` of a rule, seconds (one day). */
export const ALERT_FOR_MAX_SECONDS = 86_400;
/** Label naming the console rule an alert comes from (spec §6.3 point 6). */
export const RULE_ID_LABEL = "svc_rule_id";
/** Series a preview answers at most (the total is reported beside them). */
export const ALERT_PREVIEW_MAX_SERIES = 100;

/**
 * The Prometheus alert name of a rule name: accents dropped, lower case, every run of characters other than a-z and 0-9 made one
 * `_`, no leading or trailing `_`, prefixed `svc_`. "" when nothing is left (the name is refused with 422).
 */
export function alertNameOf(name: string): string {
  const core = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // accents dropped: "Ü" is "u"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return core === "" ? "" : `svc_${core}`;
}

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_LABELS = new Set([RULE_ID_LABEL, "alertname"]);

const labelMap = (what: string) =>
  z
    .record(
      text(128).refine((k) => LABEL_NAME.test(k) && !k.startsWith("__"), {
        message: `${what} names must match [A-Za-z_][A-Za-z0-9_]* and not start with __`,
      }),
      text(1024),
    )
    .refine((m) => Object.keys(m).length <= 32, { message: `at most 32 ${what}` });

/** A rule as a caller writes it. */
export const AlertRuleInput = z.strictObject({
  name: nameText(128).describe("shown name; the alert name is derived from it (alertName)"),
  expr: text(ALERT_EXPR_MAX).describe("PromQL; every series it returns is one alert"),
  forSeconds: z
    .number()
    .int()
    .min(0)
    .max(ALERT_FOR_MAX_SECONDS)
    .default(0)
    .describe("how long a series must hold before the alert fires (pending until then)"),
  labels: labelMap("labels")
    .refine((m) => !Object.keys(m).some((k) => RESERVED_LABELS.has(k)), {
      message: `labels must not set ${[...RESERVED_LABELS].join(" or ")}`,
    })
    .default({})
    .describe("extra labels on the alert (svc_rule_id and alertname are the console's)"),
  annotations: labelMap("annotations").default({}).describe("summary, description, ..."),
  description: noteText(2048).default("").describe("free text for people; not sent to Prometheus"),
  enabled: z.boolean().default(true).describe("false: kept, but not in Prometheus"),
});
export type AlertRuleInput = z.infer<typeof AlertRuleInput>;

/** A stored rule. */
export const AlertRule = z
  .object({
    id: z.string().describe(`value of the ${RULE_ID_LABEL} label on its alerts`),
    name: z.string(),
    alertName: z.string().describe("the Prometheus alert name (alertNameOf(name))"),
    expr: z.string(),
    forSeconds: z.number().int(),
    labels: z.record(z.string(), z.string()),
    annotations: z.record(z.string(), z.string()),
    description: z.string(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "AlertRule" });
export type AlertRule = z.infer<typeof AlertRule>;

/** Where the rule file stands against Prometheus. */
export const AlertRuleSync = z
  .object({
    state: z
      .enum(["unconfigured", "pending", "synced", "failed"])
      .describe(
        "where the rules are written (the rule file, and the PrometheusRule with kubernetesContext.enabled) " +
          "stands: unconfigured when neither is configured; failed: see error (naming the place)",
      ),
    at: z.string().nullable().describe("last attempt"),
    error: z.string().nullable(),
  })
  .meta({ id: "AlertRuleSync" });
export type AlertRuleSync = z.infer<typeof AlertRuleSync>;

/** Path parameters naming a rule; anything but a rule id is answered 404. */
export const AlertRuleIdParams = z.object({ id: text(64) });

/** A valid rule body (udp packet loss over 5 % for a minute), for docs and tests. */
export const ALERT_RULE_EXAMPLE = {
  name: "UDP loss",
  expr: "max by (source_node, destination_node) (svc_udp_packet_loss_ratio) > 0.05",
  forSeconds: 60,
  labels: { severity: "warning" },
  annotations: { summary: "udp loss {{ $labels.source_node }} -> {{ $labels.destination_node }}" },
} as const;

export const listAlertRules = route({
  name: "listAlertRules",
  method: "GET",
  path: "/api/v1/alert-rules",
  tag: "alerts",
  summary: "Alert rules, by name, and where the rule file stands against Prometheus",
  description: "503 without a database.",
  access: "alerts:read",
  spec: false,
  responses: {
    200: z.object({ rules: z.array(AlertRule), sync: AlertRuleSync }),
    ...errors(401, 403, 503),
  },
});

export const getAlertRule = route({
  name: "getAlertRule",
  method: "GET",
  path: "/api/v1/alert-rules/{id}",
  tag: "alerts",
  summary: "One alert rule",
  access: "alerts:read",
  spec: false,
  params: AlertRuleIdParams,
  responses: { 200: AlertRule, ...errors(401, 403, 404, 503) },
});

export const createAlertRule = route({
  name: "createAlertRule",
  method: "POST",
  path: "/api/v1/alert-rules",
  tag: "alerts",
  summary: "Creates an alert rule; the rule file is rewritten and Prometheus reloaded",
  description:
    "422 `alert name collision` when the name collapses to another rule's alert name; 422 for a name with no " +
    "letter or digit, or (with prometheus.url) an expression Prometheus refuses. 503 without a database. Audited.",
  access: "alerts:manage",
  spec: false,
  body: AlertRuleInput,
  example: ALERT_RULE_EXAMPLE,
  responses: { 201: AlertRule, ...errors(400, 401, 403, 422, 503) },
});

export const updateAlertRule = route({
  name: "updateAlertRule",
  method: "PUT",
  path: "/api/v1/alert-rules/{id}",
  tag: "alerts",
  summary: "Replaces an alert rule; the rule file is rewritten and Prometheus reloaded",
  description: "404 for an unknown id; 422 as for create. Audited.",
  access: "alerts:manage",
  spec: false,
  params: AlertRuleIdParams,
  body: AlertRuleInput,
  example: ALERT_RULE_EXAMPLE,
  responses: { 200: AlertRule, ...errors(400, 401, 403, 404, 422, 503) },
});

export const deleteAlertRule = route({
  name: "deleteAlertRule",
  method: "DELETE",
  path: "/api/v1/alert-rules/{id}",
  tag: "alerts",
  summary: "Deletes an alert rule; the rule file is rewritten and Prometheus reloaded",
  description: "404 for an unknown id. Audited.",
  access: "alerts:manage",
  spec: false,
  params: AlertRuleIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 503) },
});

/** One series a draft returns now. */
export const AlertPreviewSeries = z.object({
  labels: z
    .record(z.string(), z.string())
    .describe("the alert's labels: series labels, rule labels, alertname"),
  value: z.number().nullable().describe("null for NaN or infinite values"),
});

export const previewAlertRule = route({
  name: "previewAlertRule",
  method: "POST",
  path: "/api/v1/alert-rules/preview",
  tag: "alerts",
  summary: "Evaluates a draft rule now (an instant query) and stores nothing",
  description:
    "Every series the expression returns now would be an alert (pending for `forSeconds` first). 422 for an " +
    "expression Prometheus refuses or a name with no letter or digit; 503 without prometheus.url.",
  access: "alerts:manage",
  spec: true,
  safe: true,
  body: AlertRuleInput,
  example: ALERT_RULE_EXAMPLE,
  responses: {
    200: z.object({
      alertName: z.string(),
      total: z.number().int().describe("series returned now"),
      series: z.array(AlertPreviewSeries).describe(`at most ${ALERT_PREVIEW_MAX_SERIES}`),
    }),
    ...errors(400, 401, 403, 422, 502, 503),
  },
});

/** One alert of a console rule as Prometheus holds it now. */
export const CurrentAlert = z
  .object({
    ruleId: z.string(),
    state: z.enum(["pending", "firing"]).describe("pending: the expression holds, `forSeconds` not yet over"),
    labels: z.record(z.string(), z.string()),
    activeAt: z.string().describe("ISO 8601: when Prometheus first saw it (the firedAt of its webhooks)"),
    value: z.number().nullable(),
  })
  .meta({ id: "CurrentAlert" });

export const listCurrentAlerts = route({
  name: "listCurrentAlerts",
  method: "GET",
  path: "/api/v1/alerts",
  tag: "alerts",
  summary: "Alerts of the console's rules (labelled svc_rule_id) pending or firing now, read from Prometheus",
  description: "503 without prometheus.url; 502 when Prometheus cannot be read.",
  access: "alerts:read",
  spec: false,
  responses: { 200: z.object({ alerts: z.array(CurrentAlert) }), ...errors(401, 403, 502, 503) },
});
