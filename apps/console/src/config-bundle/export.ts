/**
 * Builds the configuration bundle (spec §2.12, §8.5) from the stores each section's own routes read: every section
 * the caller's permissions read, the others named in `omitted`. Webhook endpoints carry no secret (the store never
 * hands one out with an endpoint). Items name what they refer to (a definition its target's name, a schedule its
 * definition's and target's names), so a bundle means the same in another console.
 */
import {
  BUNDLE_SECTIONS,
  type BundleSection,
  CONFIG_BUNDLE_FORMAT,
  CONFIG_BUNDLE_VERSION,
  type ConfigBundle,
  type Permission,
  SECTION_READ,
  type Target,
} from "@svc/contract";
import type { AlertRules } from "../alerts/rules.ts";
import type { Catalog } from "../checks/catalog.ts";
import type { Schedules } from "../checks/schedules.ts";
import type { MaintenanceWindows } from "../maintenance/windows.ts";
import type { RbacAdmin } from "../rbac/rbac-admin.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";

/** The stores an export reads (each the one its section's list route reads). */
export interface BundleSources {
  catalog: Pick<Catalog, "listTargets" | "listChecks">;
  schedules: Pick<Schedules, "list">;
  alertRules: Pick<AlertRules, "list">;
  maintenance: Pick<MaintenanceWindows, "list">;
  webhooks: Pick<WebhookEndpoints, "list">;
  rbac: Pick<RbacAdmin, "listRoles" | "listBindings">;
}

/** A target's address as the target routes take it back: `host`, `host:port`, `[v6]:port`, or the URL. */
export function targetAddressText(t: Pick<Target, "kind" | "address" | "port">): string {
  if (t.kind === "url" || t.port === 0) return t.address;
  return t.address.includes(":") ? `[${t.address}]:${t.port}` : `${t.address}:${t.port}`;
}

/** The bundle `permissions` may read, stamped `at` by console `version`. */
export async function exportBundle(
  src: BundleSources,
  permissions: ReadonlySet<Permission>,
  at: number,
  version: string,
): Promise<ConfigBundle> {
  const can = (s: BundleSection) => permissions.has(SECTION_READ[s]);
  const bundle: ConfigBundle = {
    format: CONFIG_BUNDLE_FORMAT,
    version: CONFIG_BUNDLE_VERSION,
    exportedAt: new Date(at).toISOString(),
    consoleVersion: version,
    omitted: BUNDLE_SECTIONS.filter((s) => !can(s)),
  };
  const needCatalog = can("targets") || can("checks") || can("schedules");
  const targets = needCatalog ? await src.catalog.listTargets() : [];
  const targetName = new Map(targets.map((t) => [t.id, t.name]));
  const checks = can("checks") || can("schedules") ? await src.catalog.listChecks() : [];
  const checkById = new Map(checks.map((c) => [c.id, c]));
  if (can("targets"))
    bundle.targets = targets.map((t) => ({ id: t.id, name: t.name, address: targetAddressText(t) }));
  if (can("checks"))
    bundle.checks = checks.map((c) => ({
      id: c.id,
      name: c.name,
      target: targetName.get(c.targetId) ?? "",
      type: c.type,
      params: c.params,
      sources: { nodes: [...c.sources.nodes], zones: [...c.sources.zones] },
      intervalSeconds: c.intervalSeconds,
      timeoutSeconds: c.timeoutSeconds,
      enabled: c.enabled,
    }));
  if (can("schedules"))
    bundle.schedules = (await src.schedules.list()).map((s) => {
      const c = checkById.get(s.definitionId);
      return {
        id: s.id,
        name: s.name,
        check: c?.name ?? "",
        target: c ? (targetName.get(c.targetId) ?? "") : "",
        kind: s.kind,
        intervalSeconds: s.intervalSeconds,
        enabled: s.enabled,
      };
    });
  if (can("alertRules"))
    bundle.alertRules = (await src.alertRules.list()).map((r) => ({
      id: r.id,
      name: r.name,
      expr: r.expr,
      forSeconds: r.forSeconds,
      labels: r.labels,
      annotations: r.annotations,
      description: r.description,
      enabled: r.enabled,
    }));
  if (can("maintenanceWindows"))
    bundle.maintenanceWindows = (await src.maintenance.list()).map((w) => ({
      id: w.id,
      scope: w.scope,
      node: w.node,
      source: w.source,
      destination: w.destination,
      target: w.target,
      startAt: w.startAt,
      endAt: w.endAt,
      reason: w.reason,
    }));
  if (can("webhooks"))
    bundle.webhooks = (await src.webhooks.list()).map((e) => ({
      id: e.id,
      url: e.url,
      events: [...e.events],
      enabled: e.enabled,
    }));
  if (can("roles"))
    bundle.roles = (await src.rbac.listRoles()).map((r) => ({
      name: r.name,
      permissions: [...r.permissions],
    }));
  if (can("bindings"))
    bundle.bindings = (await src.rbac.listBindings()).map((b) => ({
      subject: b.subject,
      role: b.role,
      direct: b.direct,
    }));
  return bundle;
}
