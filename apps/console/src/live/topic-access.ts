/**
 * Who may hold which topic (spec §5.3): `live` needs `events:read`; `run:{id}` needs `runs:read`; `topology` and
 * `matrix` need a telemetry reader: a built-in role (each grants the telemetry reads), or a custom role granting
 * `promql:query` (the matrix and the topology's links are made of those metrics). A custom role granting
 * `events:read` alone is refused them, as the spec says.
 */
import type { Access } from "../rbac/resolve.ts";
import { isBuiltinRole } from "../rbac/roles.ts";

/** True when `access` reads telemetry (topology, matrix). */
export function readsTelemetry(access: Access): boolean {
  return access.roles.some(isBuiltinRole) || access.permissions.has("promql:query");
}

/** Why `topic` is refused to `access`, or undefined when it is allowed. */
export function topicRefusal(topic: string, access: Access): string | undefined {
  if (topic === "live")
    return access.permissions.has("events:read") ? undefined : "missing permission events:read";
  if (topic === "topology" || topic === "matrix")
    return readsTelemetry(access) ? undefined : `${topic} needs a telemetry-reading role`;
  if (topic.startsWith("run:"))
    return access.permissions.has("runs:read") ? undefined : "missing permission runs:read";
  return "unknown topic";
}
