/**
 * Builds each section's store over an import's transaction, wired as the console wires the real ones but without
 * their after-commit side effects (the fan-out, the rule file): the import runs those once it committed.
 */
import { alertRulesFromConfig } from "../alerts/rules.ts";
import { Catalog } from "../checks/catalog.ts";
import type { Operations } from "../checks/operations.ts";
import { Schedules } from "../checks/schedules.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { silent } from "../log.ts";
import { MaintenanceWindows } from "../maintenance/windows.ts";
import { RbacAdmin } from "../rbac/rbac-admin.ts";
import type { Db } from "../store/db.ts";
import { SqlStore } from "../store/sql-store.ts";
import { WebhookEndpoints } from "../webhooks/endpoints.ts";
import type { TxStores } from "./stores.ts";

/** A factory of TxStores for the console configured by `config`. */
export function txStoresFactory(config: ConsoleConfig, operations: Operations, now: () => number) {
  // the rule file (and PrometheusRule) are rewritten once after the import commits, not from its transaction
  const rulesConfig: ConsoleConfig = {
    ...config,
    alerts: { ...config.alerts, ruleDirectory: "" },
    kubernetesContext: { ...config.kubernetesContext, enabled: false },
  };
  return (db: Db): TxStores => {
    // one topology read per import: every enabled definition is judged against the same snapshot
    let agents: ReturnType<Operations["controller"]["topology"]> | undefined;
    const catalog = new Catalog({
      db,
      now,
      liveAgents: async () => {
        agents ??= operations.controller.topology();
        return (await agents).agents;
      },
    });
    return {
      catalog,
      schedules: new Schedules({
        db,
        scheduler: { now, schedule: () => ({ cancel() {} }) },
        catalog,
        controller: operations.controller,
        mtr: operations.mtr,
        log: silent,
      }),
      alertRules: alertRulesFromConfig(rulesConfig, db, now, silent),
      maintenance: new MaintenanceWindows(db, now),
      // no key: an import never sets a secret
      webhooks: new WebhookEndpoints(db, now, undefined),
      rbac: new RbacAdmin(new SqlStore(db), config.auth.defaultRole, now),
    };
  };
}
