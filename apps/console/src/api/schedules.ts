/** Handlers of the schedule routes (contract: @svc/contract schedules.ts); 503 without a database. */
import * as c from "@svc/contract";
import type { Schedules } from "../checks/schedules.ts";
import { UnavailableError } from "../errors.ts";
import type { AddRoute } from "./register.ts";

/** Registers the schedule routes. */
export function addScheduleRoutes(add: AddRoute, deps: { schedules: Schedules | undefined }): void {
  const schedules = (): Schedules => {
    if (!deps.schedules) throw new UnavailableError("schedules need the database");
    return deps.schedules;
  };
  add(c.listSchedules, async () => ({ schedules: await schedules().list() }));
  add(c.createSchedule, ({ body, actor }) => schedules().create(body, actor));
  add(c.updateSchedule, ({ params, body, actor }) => schedules().update(params.id, body, actor));
  add(c.deleteSchedule, async ({ params, actor }) => {
    await schedules().delete(params.id, actor);
  });
}
