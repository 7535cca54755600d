/** The stores an import writes through, all over one transaction (savepoint-db.ts), and what it runs as. */
import type { AlertRules } from "../alerts/rules.ts";
import type { Catalog } from "../checks/catalog.ts";
import type { Schedules } from "../checks/schedules.ts";
import type { MaintenanceWindows } from "../maintenance/windows.ts";
import type { RbacAdmin } from "../rbac/rbac-admin.ts";
import type { AuditActor } from "../store/audit-row.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";

/** Each section's own store, bound to the import's transaction. */
export interface TxStores {
  catalog: Catalog;
  schedules: Schedules;
  alertRules: AlertRules;
  maintenance: MaintenanceWindows;
  webhooks: WebhookEndpoints;
  rbac: RbacAdmin;
}

/** What a section's import is given: the stores, who acts, the whole bundle, and which sections it writes. */
export interface SectionContext {
  stores: TxStores;
  actor: AuditActor;
  /** the bundle's raw items of a section (a target update looks at the definitions the bundle rewrites) */
  raw: (section: "checks") => readonly unknown[];
  /** true when this import writes `section` (the caller holds its write permission) */
  writes: (section: "checks") => boolean;
}
