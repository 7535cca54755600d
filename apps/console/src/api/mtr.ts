/** Handler of the MTR path history route (contract: @svc/contract mtr.ts); 503 without a database. */
import * as c from "@svc/contract";
import { UnavailableError } from "../errors.ts";
import type { MtrHistory } from "../runs/mtr-history.ts";
import type { AddRoute } from "./register.ts";

/** Registers GET /api/v1/mtr/snapshots. */
export function addMtrRoutes(add: AddRoute, deps: { mtr: MtrHistory | undefined }): void {
  add(c.listMtrSnapshots, async ({ query }) => {
    if (!deps.mtr) throw new UnavailableError("the MTR history needs the database");
    return { snapshots: await deps.mtr.list(query.source, query.destination) };
  });
}
