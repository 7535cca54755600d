/**
 * Role resolution (spec §5.3): the union of `groupRoles` for the caller's groups, role bindings made through the
 * API (for the subject and `group:<name>`), and `defaultRole` when nothing matched an authenticated subject.
 * Anonymous callers hold exactly `auth.anonymous.role`; tokens hold exactly `auth.defaultRole`.
 */
import type { Principal } from "../auth/principal.ts";
import type { CustomRole, RoleBinding } from "../store/store.ts";
import { BUILTIN_ROLE_PERMISSIONS, isBuiltinRole, PERMISSIONS, type Permission } from "./roles.ts";

/** Inputs of role resolution that come from configuration. */
export interface RolePolicy {
  anonymousRole: string;
  defaultRole: string;
  groupRoles: Readonly<Record<string, string>>;
}

/** A caller's resolved roles and the permissions they grant. */
export interface Access {
  roles: string[];
  permissions: Set<Permission>;
}

/** Subject string under which API bindings of a group are stored. */
export function groupSubject(group: string): string {
  return `group:${group}`;
}

/** Resolves roles; `bindings` are all bindings of the subject and its groups (empty without a store). */
export function resolveAccess(
  p: Principal,
  policy: RolePolicy,
  bindings: readonly RoleBinding[],
  customRoles: readonly CustomRole[],
): Access {
  let roles: string[];
  if (p.kind === "anonymous") roles = policy.anonymousRole ? [policy.anonymousRole] : [];
  else if (p.kind === "token") roles = policy.defaultRole ? [policy.defaultRole] : [];
  else {
    const set = new Set<string>();
    for (const g of p.groups) {
      // a group is the caller's claim: only the map's own keys count (`constructor`, `__proto__` name nothing)
      const r = Object.hasOwn(policy.groupRoles, g) ? policy.groupRoles[g] : undefined;
      if (typeof r === "string" && r !== "") set.add(r);
    }
    const subjects = new Set([p.subject, ...p.groups.map(groupSubject)]);
    for (const b of bindings) if (subjects.has(b.subject)) set.add(b.role);
    if (set.size === 0 && policy.defaultRole) set.add(policy.defaultRole);
    roles = [...set].sort();
  }
  return { roles, permissions: permissionsOf(roles, customRoles) };
}

/** The union of permissions of `roles`; unknown roles and unknown permission names grant nothing. */
export function permissionsOf(roles: readonly string[], customRoles: readonly CustomRole[]): Set<Permission> {
  const out = new Set<Permission>();
  for (const r of roles) {
    const perms = isBuiltinRole(r)
      ? BUILTIN_ROLE_PERMISSIONS[r]
      : (customRoles.find((c) => c.name === r)?.permissions ?? []);
    for (const p of perms) if ((PERMISSIONS as readonly string[]).includes(p)) out.add(p as Permission);
  }
  return out;
}
