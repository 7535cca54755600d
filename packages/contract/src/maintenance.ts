/**
 * Maintenance windows (spec §2.12, §3.4, §6.3 point 7; paths are the console's choice, §4.3 leaves them open): a
 * scope (the whole fleet, a node, a pair, or an external target) and a start and end. An alert that starts firing
 * inside a matching window is held and delivered at the window's close only if still firing; resolves inside a
 * window are never delivered. Reading needs `maintenance:read`; writing needs `incidents:write` (the operator's
 * "write annotations, incidents, maintenance windows" grant of §5.3 has no permission of its own). Audited; all need
 * the database.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** Scope kinds of a window. */
export const MAINTENANCE_SCOPES = ["fleet", "node", "pair", "target"] as const;

const instant = (key: string) =>
  z.iso.datetime({ offset: true, message: `${key} must be an ISO 8601 instant` });

/** A window as a caller writes it; the fields its scope does not use must be empty. */
export const MaintenanceInput = z.strictObject({
  scope: z.enum(MAINTENANCE_SCOPES),
  node: nameText(253)
    .default("")
    .describe("scope node: the node (an alert whose source or destination it is)"),
  source: nameText(253).default("").describe("scope pair: source node"),
  destination: nameText(253).default("").describe("scope pair: destination node"),
  target: nameText(2048).default("").describe("scope target: the target an alert's `target` label names"),
  startAt: instant("startAt"),
  endAt: instant("endAt"),
  reason: text(1024).default(""),
});
export type MaintenanceInput = z.infer<typeof MaintenanceInput>;

/** A stored window. */
export const MaintenanceWindow = z
  .object({
    id: z.string(),
    scope: z.enum(MAINTENANCE_SCOPES),
    node: z.string(),
    source: z.string(),
    destination: z.string(),
    target: z.string(),
    startAt: z.string(),
    endAt: z.string(),
    reason: z.string(),
    author: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "MaintenanceWindow" });
export type MaintenanceWindow = z.infer<typeof MaintenanceWindow>;

/** Path parameters naming a window; anything but a window id is answered 404. */
export const MaintenanceIdParams = z.object({ id: text(64) });

/** A valid body: node-2 for an hour. */
export const MAINTENANCE_EXAMPLE = {
  scope: "node",
  node: "node-2",
  startAt: "2026-01-01T02:00:00Z",
  endAt: "2026-01-01T03:00:00Z",
  reason: "kernel upgrade",
} as const;

export const listMaintenanceWindows = route({
  name: "listMaintenanceWindows",
  method: "GET",
  path: "/api/v1/maintenance-windows",
  tag: "maintenance",
  summary: "Maintenance windows, newest start first",
  description: "503 without a database.",
  access: "maintenance:read",
  spec: false,
  responses: { 200: z.object({ windows: z.array(MaintenanceWindow) }), ...errors(401, 403, 503) },
});

export const createMaintenanceWindow = route({
  name: "createMaintenanceWindow",
  method: "POST",
  path: "/api/v1/maintenance-windows",
  tag: "maintenance",
  summary: "Adds a maintenance window",
  description:
    "422 for a window that does not end after it starts, or a scope without its node, pair or target (or with " +
    "fields it does not use). Audited.",
  access: "incidents:write",
  spec: false,
  body: MaintenanceInput,
  example: MAINTENANCE_EXAMPLE,
  responses: { 201: MaintenanceWindow, ...errors(400, 401, 403, 422, 503) },
});

export const updateMaintenanceWindow = route({
  name: "updateMaintenanceWindow",
  method: "PUT",
  path: "/api/v1/maintenance-windows/{id}",
  tag: "maintenance",
  summary: "Replaces a maintenance window",
  description: "404 for an unknown id; 422 as for create. Audited.",
  access: "incidents:write",
  spec: false,
  params: MaintenanceIdParams,
  body: MaintenanceInput,
  example: MAINTENANCE_EXAMPLE,
  responses: { 200: MaintenanceWindow, ...errors(400, 401, 403, 404, 422, 503) },
});

export const deleteMaintenanceWindow = route({
  name: "deleteMaintenanceWindow",
  method: "DELETE",
  path: "/api/v1/maintenance-windows/{id}",
  tag: "maintenance",
  summary: "Deletes a maintenance window",
  description: "404 for an unknown id. Audited.",
  access: "incidents:write",
  spec: false,
  params: MaintenanceIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 503) },
});
