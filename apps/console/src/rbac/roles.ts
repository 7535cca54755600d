/** Built-in roles and permission names of spec §5.3, exactly as the spec spells them. */

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

const VIEWER: readonly Permission[] = [
  "events:read",
  "annotations:read",
  "mtr:read",
  "runs:read",
  "maintenance:read",
  "alerts:read",
  "promql:query",
  "incidents:read",
];

/** Permissions granted by each built-in role. */
export const BUILTIN_ROLE_PERMISSIONS: Readonly<Record<BuiltinRole, readonly Permission[]>> = {
  viewer: VIEWER,
  operator: [...VIEWER, "runs:create", "targets:read", "checks:read", "incidents:write", "alerts:manage"],
  "alert-editor": [...VIEWER, "runs:create", "alerts:manage"],
  admin: PERMISSIONS,
};

/** True when `name` is a built-in role. */
export function isBuiltinRole(name: string): name is BuiltinRole {
  return (BUILTIN_ROLES as readonly string[]).includes(name);
}
