/**
 * Handlers of the maintenance window routes (contract: @svc/contract maintenance.ts): read with `maintenance:read`,
 * write with `incidents:write`; every write audited in its own transaction; 503 without a database.
 */
import * as c from "@svc/contract";
import { UnavailableError } from "../errors.ts";
import type { MaintenanceWindows } from "../maintenance/windows.ts";
import type { AddRoute } from "./register.ts";

/** Registers the maintenance window routes. */
export function addMaintenanceRoutes(add: AddRoute, deps: { windows: MaintenanceWindows | undefined }): void {
  const windows = (): MaintenanceWindows => {
    if (!deps.windows) throw new UnavailableError("maintenance windows need the database");
    return deps.windows;
  };
  add(c.listMaintenanceWindows, async () => ({ windows: await windows().list() }));
  add(c.createMaintenanceWindow, ({ body, actor }) => windows().create(body, actor));
  add(c.updateMaintenanceWindow, ({ params, body, actor }) => windows().update(params.id, body, actor));
  add(c.deleteMaintenanceWindow, async ({ params, actor }) => {
    await windows().delete(params.id, actor);
  });
}
