/** Permissions granted by the built-in roles of spec §5.3 (names from @svc/contract). */
import { BUILTIN_ROLES, type BuiltinRole, PERMISSIONS, type Permission } from "@svc/contract";

export { BUILTIN_ROLES, type BuiltinRole, PERMISSIONS, type Permission };

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
