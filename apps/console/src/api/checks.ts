/**
 * Handlers of the target and check-definition routes (contract: @svc/contract targets.ts, checks.ts): reads and
 * audited writes over the catalog; 503 without a database.
 */
import * as c from "@svc/contract";
import type { Catalog } from "../checks/catalog.ts";
import { UnavailableError } from "../errors.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the target and check routes. */
export interface CheckRouteDeps {
  /** undefined without a database */
  catalog: Catalog | undefined;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

/** Registers the target and check-definition routes. */
export function addCheckRoutes(add: AddRoute, deps: CheckRouteDeps): void {
  const catalog = (): Catalog => {
    if (!deps.catalog) throw new UnavailableError("targets and check definitions need the database");
    return deps.catalog;
  };
  add(c.listTargets, async () => ({ targets: await catalog().listTargets() }));
  add(c.getTarget, ({ params }) => catalog().getTarget(params.id));
  add(c.createTarget, ({ body, actor }) => catalog().createTarget(body, actor));
  add(c.updateTarget, ({ params, body, actor }) => catalog().updateTarget(params.id, body, actor));
  add(c.deleteTarget, async ({ params, actor }) => {
    await catalog().deleteTarget(params.id, actor);
  });
  add(c.listChecks, async ({ query }) => ({ checks: await catalog().listChecks(query.targetId) }));
  add(c.createCheck, ({ body, actor }) => catalog().createCheck(body, actor));
  add(c.updateCheck, ({ params, body, actor }) => catalog().updateCheck(params.id, body, actor));
  add(c.deleteCheck, async ({ params, actor }) => {
    await catalog().deleteCheck(params.id, actor);
  });
  // the row is written before the controller is asked, as for the fleet check; the draft itself is not stored
  add(c.projectCheck, async ({ body, actor }) => {
    const p = await catalog().projection(body);
    await deps.audit({ ...actor, outcome: "allowed", detail: { type: body.type, targetId: body.targetId } });
    return p;
  });
}
