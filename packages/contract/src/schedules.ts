/**
 * Schedules (spec §2.12, §7; paths the console's choice): a check definition run on a cadence as one-shot
 * diagnostics from the agents its source selection picks to its target, kind `check` (the definition's own type:
 * tcp or icmp reach an external target, spec §4.2) or `mtr` (a trace to the target, kept in the MTR path history).
 * State, next/last stamps and the last failure message are shown. 422 when the kind cannot run the definition's
 * check, or (enabled) when no live agent could; `enabled: false` always saves. Managing needs `checks:read` (as for
 * definitions, docs/decisions.md). Audited; database.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { idFrom, route } from "./route.ts";
import { nameText, text } from "./strings.ts";

export const ScheduleKind = z.enum(["check", "mtr"]);

/** A schedule as the API shows it. */
export const Schedule = z
  .object({
    id: z.string(),
    name: z.string(),
    definitionId: z.string(),
    kind: ScheduleKind,
    intervalSeconds: z.number(),
    enabled: z.boolean(),
    state: z
      .enum(["active", "failing", "paused"])
      .describe("paused when disabled; failing after a failed round"),
    nextRunAt: z.string().nullable(),
    lastRunAt: z.string().nullable(),
    lastFailure: z.string().nullable().describe("what went wrong in the latest round that failed"),
    lastFailureAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Schedule" });
export type Schedule = z.infer<typeof Schedule>;

export const ScheduleInput = z.strictObject({
  name: nameText(128).min(1),
  definitionId: text(64).min(1),
  kind: ScheduleKind.default("check"),
  intervalSeconds: z.number().int().min(60).max(86_400).default(300),
  enabled: z.boolean().default(true),
});
export type ScheduleInput = z.infer<typeof ScheduleInput>;

export const ScheduleIdParams = z.object({ id: text(64) });

export const listSchedules = route({
  name: "listSchedules",
  method: "GET",
  path: "/api/v1/schedules",
  tag: "schedules",
  summary: "Schedules, by name",
  access: "checks:read",
  spec: false,
  responses: { 200: z.object({ schedules: z.array(Schedule) }), ...errors(401, 403, 503) },
});

export const createSchedule = route({
  name: "createSchedule",
  method: "POST",
  path: "/api/v1/schedules",
  tag: "schedules",
  summary: "Creates a schedule",
  description:
    "422 for an unknown definition, a kind that cannot run its check (kind check on a dns or http definition), " +
    "or (enabled) no live agent that could run it. Audited.",
  access: "checks:read",
  spec: false,
  body: ScheduleInput,
  example: {
    name: "hourly trace",
    definitionId: idFrom("createCheck"),
    kind: "mtr",
    intervalSeconds: 3600,
  },
  responses: { 201: Schedule, ...errors(400, 401, 403, 422, 502, 503) },
});

export const updateSchedule = route({
  name: "updateSchedule",
  method: "PUT",
  path: "/api/v1/schedules/{id}",
  tag: "schedules",
  summary: "Replaces a schedule",
  description: "404 for an unknown id; judged for runnability only when it stays enabled. Audited.",
  access: "checks:read",
  spec: false,
  params: ScheduleIdParams,
  body: ScheduleInput,
  example: {
    name: "hourly trace",
    definitionId: idFrom("createCheck"),
    kind: "mtr",
    intervalSeconds: 3600,
    enabled: false,
  },
  responses: { 200: Schedule, ...errors(400, 401, 403, 404, 422, 502, 503) },
});

export const deleteSchedule = route({
  name: "deleteSchedule",
  method: "DELETE",
  path: "/api/v1/schedules/{id}",
  tag: "schedules",
  summary: "Deletes a schedule",
  description: "404 for an unknown id. Audited.",
  access: "checks:read",
  spec: false,
  params: ScheduleIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 503) },
});
