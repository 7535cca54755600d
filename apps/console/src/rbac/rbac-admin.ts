/**
 * Role bindings and custom roles through the API (spec §5.3, §5.5). Each change runs under the identity lock and
 * answers 409 when it would leave no enabled local user holding `users:manage`, including the indirect ways:
 * dropping `users:manage` from a custom role, deleting the last binding, or binding a user who holds it only
 * through `defaultRole` (any binding replaces the default). `groupRoles` come from config and are not touched.
 * Each change appends its `actor`'s audit row in its transaction.
 */
import { ConflictError, NotFoundError, UnprocessableError } from "../errors.ts";
import { type AuditActor, allowedRow } from "../store/audit-row.ts";
import type { CustomRole, RoleBinding, Store, UserAdminTx } from "../store/store.ts";
import { administrators } from "../users/user-admin.ts";
import { isBuiltinRole, PERMISSIONS } from "./roles.ts";

const SUBJECT = /^(local|oidc|header|token|group):.{1,256}$/s;
const ROLE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** RBAC administration over the store. */
export class RbacAdmin {
  constructor(
    private readonly store: Store,
    private readonly defaultRole: string,
    private readonly now: () => number,
  ) {}

  listBindings(): Promise<RoleBinding[]> {
    return this.store.listBindings();
  }

  listRoles(): Promise<CustomRole[]> {
    return this.store.listCustomRoles();
  }

  /** Binds `role` to `subject` (`local:<id>`, `oidc:<sub>`, `header:<name>`, `group:<name>`). */
  async addBinding(subject: string, role: string, actor: AuditActor): Promise<RoleBinding> {
    if (!SUBJECT.test(subject))
      throw new UnprocessableError("subject must be local:, oidc:, header:, token: or group: plus a name");
    return this.store.userAdmin(async (tx) => {
      const state = await load(tx);
      if (!isBuiltinRole(role) && !state.customRoles.some((r) => r.name === role)) {
        throw new UnprocessableError(`unknown role ${JSON.stringify(role)}`);
      }
      const after = {
        ...state,
        bindings: [...state.bindings, { id: "new", subject, role, direct: false, createdAt: 0 }],
      };
      this.guard(state, after, "bind that role (it replaces defaultRole) to");
      const added = await tx.addBinding(subject, role, this.now());
      await tx.appendAudit(allowedRow(actor, this.now(), { bindingId: added.id, subject, role }));
      return added;
    });
  }

  /** Deletes a binding by id (404 when unknown). */
  async deleteBinding(id: string, actor: AuditActor): Promise<void> {
    await this.store.userAdmin(async (tx) => {
      const state = await load(tx);
      if (!state.bindings.some((b) => b.id === id)) throw new NotFoundError("no such binding");
      this.guard(
        state,
        { ...state, bindings: state.bindings.filter((b) => b.id !== id) },
        "delete the binding of",
      );
      await tx.deleteBinding(id);
      await tx.appendAudit(allowedRow(actor, this.now(), { bindingId: id }));
    });
  }

  /** Creates or replaces a custom role. 422 for a built-in or malformed name or an unknown permission. */
  async putRole(name: string, permissions: readonly string[], actor: AuditActor): Promise<CustomRole> {
    if (!ROLE_NAME.test(name) || isBuiltinRole(name)) {
      throw new UnprocessableError(
        "role name must be lower-case letters, digits and -, and not a built-in role",
      );
    }
    const unknown = permissions.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
    if (unknown.length > 0) throw new UnprocessableError(`unknown permissions: ${unknown.join(", ")}`);
    const perms = [...new Set(permissions)].sort();
    return this.store.userAdmin(async (tx) => {
      const state = await load(tx);
      const role = {
        name,
        permissions: perms,
        createdAt: state.customRoles.find((r) => r.name === name)?.createdAt ?? this.now(),
      };
      this.guard(
        state,
        { ...state, customRoles: [...state.customRoles.filter((r) => r.name !== name), role] },
        "change the role of",
      );
      await tx.putCustomRole(name, perms, this.now());
      await tx.appendAudit(allowedRow(actor, this.now(), { role: name, permissions: perms }));
      return role;
    });
  }

  /** Deletes a custom role; 409 while any binding uses it, 404 when unknown. */
  async deleteRole(name: string, actor: AuditActor): Promise<void> {
    await this.store.userAdmin(async (tx) => {
      const state = await load(tx);
      if (!state.customRoles.some((r) => r.name === name)) throw new NotFoundError("no such role");
      if (state.bindings.some((b) => b.role === name)) throw new ConflictError(`role ${name} is still bound`);
      await tx.deleteCustomRole(name);
      await tx.appendAudit(allowedRow(actor, this.now(), { role: name }));
    });
  }

  private guard(before: State, after: State, verb: string): void {
    if (
      administrators(before, this.defaultRole).length > 0 &&
      administrators(after, this.defaultRole).length === 0
    ) {
      throw new ConflictError(`cannot ${verb} the last administrator (last holder of users:manage)`);
    }
  }
}

type State = Awaited<ReturnType<typeof load>>;

async function load(tx: UserAdminTx) {
  const [users, bindings, customRoles] = await Promise.all([
    tx.listUsers(),
    tx.listBindings(),
    tx.listCustomRoles(),
  ]);
  return { users, bindings, customRoles };
}
