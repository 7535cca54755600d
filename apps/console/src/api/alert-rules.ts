/**
 * Handlers of the alert-rule routes (contract: @svc/contract alert-rules.ts): read with `alerts:read`, write and
 * preview with `alerts:manage`; the current alerts of the console's rules (from Prometheus) with `alerts:read`; every write audited in its own transaction; 503 without a database.
 */
import * as c from "@svc/contract";
import { type PrometheusAlert, prometheusAlertSource } from "../alerts/poller.ts";
import type { AlertRules } from "../alerts/rules.ts";
import { evaluatorUrl } from "../config/rules.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { UnavailableError } from "../errors.ts";
import { MetricsUnconfiguredError, MetricsUpstreamError } from "../fleet/fleet-errors.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the alert-rule routes. */
export interface AlertRuleRouteDeps {
  /** undefined without a database (503) */
  rules: AlertRules | undefined;
  /** `prometheus.url` and its query timeout, for the current alerts */
  config: ConsoleConfig;
}

/** Registers the alert-rule routes. */
export function addAlertRuleRoutes(add: AddRoute, deps: AlertRuleRouteDeps): void {
  const rules = (): AlertRules => {
    if (!deps.rules) throw new UnavailableError("alert rules need the database");
    return deps.rules;
  };
  add(c.listAlertRules, async () => {
    const r = rules();
    return { rules: await r.list(), sync: r.sync() };
  });
  add(c.getAlertRule, ({ params }) => rules().get(params.id));
  add(c.createAlertRule, ({ body, actor }) => rules().create(body, actor));
  add(c.previewAlertRule, ({ body }) => rules().preview(body));
  add(c.updateAlertRule, ({ params, body, actor }) => rules().update(params.id, body, actor));
  add(c.deleteAlertRule, async ({ params, actor }) => {
    await rules().delete(params.id, actor);
  });
  const url = evaluatorUrl(deps.config);
  const source = url === "" ? undefined : prometheusAlertSource(url, deps.config.prometheus.queryTimeout);
  add(c.listCurrentAlerts, async () => {
    if (!source) throw new MetricsUnconfiguredError();
    let alerts: PrometheusAlert[];
    try {
      alerts = await source();
    } catch (e) {
      throw new MetricsUpstreamError(e instanceof Error ? e.message : String(e));
    }
    return {
      alerts: alerts.flatMap((a) => {
        const ruleId = a.labels[c.RULE_ID_LABEL];
        const state: "pending" | "firing" | undefined =
          a.state === "pending" || a.state === "firing" ? a.state : undefined;
        const at = a.activeAt ? Date.parse(a.activeAt) : Number.NaN;
        if (!ruleId || !state || !Number.isFinite(at)) return [];
        const value = a.value === undefined ? Number.NaN : Number(a.value);
        return [
          {
            ruleId,
            state,
            labels: a.labels,
            activeAt: new Date(at).toISOString(),
            value: Number.isFinite(value) ? value : null,
          },
        ];
      }),
    };
  });
}
