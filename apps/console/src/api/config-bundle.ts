/**
 * Handlers of GET /api/v1/export and POST /api/v1/import (contract: @svc/contract config-bundle.ts): any caller
 * holding a role; each section is read or written only with its own permission (config-bundle/). 503 without a
 * database.
 */
import * as c from "@svc/contract";
import type { AlertRules } from "../alerts/rules.ts";
import type { Operations } from "../checks/operations.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { exportBundle } from "../config-bundle/export.ts";
import { runImport } from "../config-bundle/importer.ts";
import { txStoresFactory } from "../config-bundle/tx-stores.ts";
import { UnavailableError } from "../errors.ts";
import type { MaintenanceWindows } from "../maintenance/windows.ts";
import type { RbacAdmin } from "../rbac/rbac-admin.ts";
import type { Db } from "../store/db.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";
import type { AccessResolver } from "./context.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the bundle routes (the stores are undefined without a database: 503). */
export interface ConfigBundleRouteDeps {
  config: ConsoleConfig;
  version: string;
  now: () => number;
  resolveAccess: AccessResolver;
  db: Db | undefined;
  operations: Operations | undefined;
  alertRules: AlertRules | undefined;
  maintenance: MaintenanceWindows | undefined;
  webhooks: WebhookEndpoints | undefined;
  rbac: RbacAdmin | undefined;
}

/** Registers the export and import routes. */
export function addConfigBundleRoutes(add: AddRoute, deps: ConfigBundleRouteDeps): void {
  const ready = () => {
    const { db, operations, alertRules, maintenance, webhooks, rbac } = deps;
    if (!db || !operations || !alertRules || !maintenance || !webhooks || !rbac)
      throw new UnavailableError("the configuration bundle needs the database");
    return { db, operations, alertRules, maintenance, webhooks, rbac };
  };
  let stores: ReturnType<typeof txStoresFactory> | undefined;
  add(c.exportConfig, async ({ req, principal }) => {
    const s = ready();
    const { permissions } = await deps.resolveAccess(req, principal);
    return exportBundle(
      {
        catalog: s.operations.catalog,
        schedules: s.operations.schedules,
        alertRules: s.alertRules,
        maintenance: s.maintenance,
        webhooks: s.webhooks,
        rbac: s.rbac,
      },
      permissions,
      deps.now(),
      deps.version,
    );
  });
  add(
    c.importConfig,
    async ({ req, principal, body, query, actor }) => {
      const s = ready();
      const { permissions } = await deps.resolveAccess(req, principal);
      stores ??= txStoresFactory(deps.config, s.operations, deps.now);
      const dryRun = query.dryRun === "true";
      const report = await runImport({ db: s.db, now: deps.now, stores }, body, permissions, actor, dryRun);
      if (!dryRun) {
        s.operations.catalog.notifyChanged();
        void s.alertRules.file.sync();
      }
      return report;
    },
    { bodyLimit: c.CONFIG_BUNDLE_MAX_BYTES },
  );
}
