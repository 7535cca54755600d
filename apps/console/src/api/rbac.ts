/**
 * Handlers of role bindings and custom roles (`rbac:manage`) and of GET /api/v1/audit (`audit:read`, newest 200
 * rows); contract: @svc/contract rbac.ts. 503 without a database.
 */
import * as c from "@svc/contract";
import type { ConsoleConfig } from "../config/schema.ts";
import { UnavailableError } from "../errors.ts";
import type { RbacAdmin } from "../rbac/rbac-admin.ts";
import { BUILTIN_ROLE_PERMISSIONS } from "../rbac/roles.ts";
import type { Store } from "../store/store.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the RBAC and audit routes. */
export interface RbacRouteDeps {
  config: ConsoleConfig;
  rbac?: RbacAdmin;
  store?: Store;
}

/** Registers the routes. */
export function addRbacRoutes(add: AddRoute, deps: RbacRouteDeps): void {
  const rbac = (): RbacAdmin => {
    if (!deps.rbac) throw new UnavailableError("role bindings need the database");
    return deps.rbac;
  };

  add(c.listBindings, async () => ({
    bindings: await rbac().listBindings(),
    groupRoles: deps.config.auth.groupRoles,
  }));
  add(c.createBinding, async ({ body, actor }) => rbac().addBinding(body.subject, body.role, actor));
  add(c.deleteBinding, async ({ params, actor }) => {
    await rbac().deleteBinding(params.id, actor);
  });
  add(c.listRoles, async () => ({
    builtin: Object.fromEntries(Object.entries(BUILTIN_ROLE_PERMISSIONS).map(([k, v]) => [k, [...v]])),
    custom: await rbac().listRoles(),
  }));
  add(c.putRole, async ({ params, body, actor }) => rbac().putRole(params.name, body.permissions, actor));
  add(c.deleteRole, async ({ params, actor }) => {
    await rbac().deleteRole(params.name, actor);
  });

  add(c.listAudit, async () => {
    if (!deps.store) throw new UnavailableError("no database: no audit history");
    const rows = await deps.store.listAudit(c.AUDIT_PAGE);
    return {
      rows: rows.map((r) => ({
        id: r.id,
        at: new Date(r.at).toISOString(),
        subject: r.subject,
        subjectDisplay: r.subjectDisplay,
        action: r.action,
        outcome: r.outcome,
        remoteAddr: r.remoteAddr,
      })),
    };
  });
}
