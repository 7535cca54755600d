/**
 * Handlers of the alert-rule routes (contract: @svc/contract alert-rules.ts): read with `alerts:read`, write and
 * preview with `alerts:manage`; every write audited in its own transaction; 503 without a database.
 */
import * as c from "@svc/contract";
import type { AlertRules } from "../alerts/rules.ts";
import { UnavailableError } from "../errors.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the alert-rule routes. */
export interface AlertRuleRouteDeps {
  /** undefined without a database (503) */
  rules: AlertRules | undefined;
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
}
