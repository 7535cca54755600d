/** Permission and built-in role names of spec §5.3, exactly as the spec spells them. */

/** Every permission name the console knows (spec §5.3). */
export const PERMISSIONS = [
  "events:read",
  "audit:read",
  "annotations:read",
  "mtr:read",
  "runs:read",
  "runs:create",
  "maintenance:read",
  "alerts:read",
  "alerts:manage",
  "promql:query",
  "incidents:read",
  "incidents:write",
  "targets:read",
  "checks:read",
  "users:manage",
  "tokens:manage",
  "webhooks:manage",
  "settings:write",
  "rbac:manage",
] as const;

/** One permission name. */
export type Permission = (typeof PERMISSIONS)[number];

/** The built-in role names. */
export const BUILTIN_ROLES = ["viewer", "operator", "alert-editor", "admin"] as const;

/** One built-in role name. */
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];
