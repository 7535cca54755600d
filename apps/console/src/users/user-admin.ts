/**
 * Local user administration (spec §3.2, §5.5): create, role change, disable, re-enable, delete, password reset and
 * own password change. Every change runs in one transaction under the identity lock and is refused with 409 when
 * it would leave no enabled user holding `users:manage` (the last administrator), whichever way it would do so.
 * Token revocation failing answers 502 `tokens unavailable` and changes nothing. Each change appends its `actor`'s
 * audit row in its transaction, so a change whose row cannot be written does not happen.
 */
import type { UserView } from "@svc/contract";
import { checkPasswordRules, hashPassword, verifyPassword } from "../auth/password.ts";
import {
  ConflictError,
  NotFoundError,
  UnauthenticatedError,
  UnprocessableError,
  UpstreamError,
} from "../errors.ts";
import { permissionsOf } from "../rbac/resolve.ts";
import { isBuiltinRole } from "../rbac/roles.ts";
import { type AuditActor, allowedRow } from "../store/audit-row.ts";
import { localSubject } from "../store/sql-store.ts";
import type { CustomRole, RoleBinding, Store, UserAdminTx, UserRecord } from "../store/store.ts";

export type { UserView };

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

interface IdentityState {
  users: UserRecord[];
  bindings: RoleBinding[];
  customRoles: CustomRole[];
}

/** Ids of enabled local users holding `users:manage` in `state`. */
export function administrators(state: IdentityState, defaultRole: string): string[] {
  return state.users
    .filter((u) => u.enabled)
    .filter((u) => {
      const subject = localSubject(u.id);
      let roles = state.bindings.filter((b) => b.subject === subject).map((b) => b.role);
      if (roles.length === 0 && defaultRole) roles = [defaultRole];
      return permissionsOf(roles, state.customRoles).has("users:manage");
    })
    .map((u) => u.id);
}

/** User administration over the store. */
export class UserAdmin {
  constructor(
    private readonly store: Store,
    private readonly defaultRole: string,
    private readonly now: () => number,
    /** sessions kept outside the database (Redis) are ended here too, after the transaction commits */
    private readonly outsideSessions?: { endAllOf(subject: string, keepIdHash?: string): Promise<number> },
  ) {}

  private async endOutside(subject: string, keepIdHash?: string): Promise<void> {
    await this.outsideSessions?.endAllOf(subject, keepIdHash);
  }

  /** Every local user with its direct role. */
  async list(): Promise<UserView[]> {
    const [users, bindings] = await Promise.all([this.store.listUsers(), this.store.listBindings()]);
    return users.map((u) => view(u, bindings));
  }

  /** Creates a user with one direct role. 422 for a bad username, short password or unknown role; 409 when taken. */
  async create(username: string, password: string, role: string, actor: AuditActor): Promise<UserView> {
    if (!USERNAME.test(username))
      throw new UnprocessableError("username must be 1-64 of letters, digits, . _ @ -");
    checkPasswordRules(password);
    await this.requireRole(role);
    const u = await this.store.createUser(
      { username, passwordHash: await hashPassword(password), role },
      this.now(),
      allowedRow(actor, this.now(), { username, role }),
    );
    return { id: u.id, username: u.username, role, enabled: true, createdAt: u.createdAt };
  }

  /** Replaces the user's direct role; group bindings stay. 409 when it would remove the last administrator. */
  async setRole(id: string, role: string, actor: AuditActor): Promise<UserView> {
    await this.requireRole(role);
    return this.store.userAdmin(async (tx) => {
      const state = await this.load(tx);
      const user = find(state, id);
      const subject = localSubject(id);
      const after = {
        ...state,
        bindings: [
          ...state.bindings.filter((b) => !(b.subject === subject && (b.direct || b.role === role))),
          { id: "new", subject, role, direct: true, createdAt: 0 },
        ],
      };
      this.guard(state, after, "change the role of");
      await tx.setDirectRole(subject, role, this.now());
      await tx.appendAudit(allowedRow(actor, this.now(), { userId: id, role }));
      return view(user, after.bindings);
    });
  }

  /** Disables: sessions ended, tokens owned or minted revoked. 409 for the last administrator, 502 tokens. */
  async disable(id: string, actor: AuditActor): Promise<void> {
    await this.store.userAdmin(async (tx) => {
      const state = await this.load(tx);
      const user = find(state, id);
      await tx.appendAudit(allowedRow(actor, this.now(), { userId: id }));
      if (!user.enabled) return;
      this.guard(
        state,
        { ...state, users: state.users.map((u) => (u.id === id ? { ...u, enabled: false } : u)) },
        "disable",
      );
      await tx.setEnabled(id, false, this.now());
      await revoke(tx, localSubject(id), this.now());
      await tx.deleteSessionsOf(localSubject(id));
    });
    await this.endOutside(localSubject(id));
  }

  /** Re-enables: still-active tokens revoked first (502 tokens unavailable, user stays disabled). */
  async enable(id: string, actor: AuditActor): Promise<void> {
    await this.store.userAdmin(async (tx) => {
      const user = find(await this.load(tx), id);
      await tx.appendAudit(allowedRow(actor, this.now(), { userId: id }));
      if (user.enabled) return;
      await revoke(tx, localSubject(id), this.now());
      await tx.setEnabled(id, true, this.now());
    });
  }

  /** Deletes: tokens revoked first, then the account and its bindings; sessions end. 409 / 502 as above. */
  async delete(id: string, actor: AuditActor): Promise<void> {
    await this.store.userAdmin(async (tx) => {
      const state = await this.load(tx);
      find(state, id);
      const subject = localSubject(id);
      this.guard(
        state,
        {
          ...state,
          users: state.users.filter((u) => u.id !== id),
          bindings: state.bindings.filter((b) => b.subject !== subject),
        },
        "delete",
      );
      await revoke(tx, subject, this.now());
      await tx.deleteUser(id);
      await tx.deleteSessionsOf(subject);
      await tx.appendAudit(allowedRow(actor, this.now(), { userId: id }));
    });
    await this.endOutside(localSubject(id));
  }

  /** Administrator reset: new password, every session of the user ended. */
  async resetPassword(id: string, password: string, actor: AuditActor): Promise<void> {
    checkPasswordRules(password);
    const hash = await hashPassword(password);
    await this.store.userAdmin(async (tx) => {
      find(await this.load(tx), id);
      await tx.setPasswordHash(id, hash, this.now());
      await tx.deleteSessionsOf(localSubject(id));
      await tx.appendAudit(allowedRow(actor, this.now(), { userId: id }));
    });
    await this.endOutside(localSubject(id));
  }

  /** Own change: the current password must match (401); other sessions ended, `keepSession` kept. */
  async changeOwnPassword(
    id: string,
    current: string,
    next: string,
    keepSession: string,
    actor: AuditActor,
  ): Promise<void> {
    checkPasswordRules(next);
    const user = await this.store.getUser(id);
    if (!user || !(await verifyPassword(user.passwordHash, current))) {
      throw new UnauthenticatedError("current password is wrong");
    }
    const hash = await hashPassword(next);
    await this.store.userAdmin(async (tx) => {
      await tx.setPasswordHash(id, hash, this.now());
      await tx.deleteSessionsOf(localSubject(id), keepSession);
      await tx.appendAudit(allowedRow(actor, this.now()));
    });
    await this.endOutside(localSubject(id), keepSession);
  }

  private async requireRole(role: string): Promise<void> {
    if (isBuiltinRole(role)) return;
    if (!(await this.store.listCustomRoles()).some((r) => r.name === role)) {
      throw new UnprocessableError(`unknown role ${JSON.stringify(role)}`);
    }
  }

  private async load(tx: UserAdminTx): Promise<IdentityState> {
    const [users, bindings, customRoles] = await Promise.all([
      tx.listUsers(),
      tx.listBindings(),
      tx.listCustomRoles(),
    ]);
    return { users, bindings, customRoles };
  }

  private guard(before: IdentityState, after: IdentityState, verb: string): void {
    if (
      administrators(before, this.defaultRole).length > 0 &&
      administrators(after, this.defaultRole).length === 0
    ) {
      throw new ConflictError(`cannot ${verb} the last administrator (last holder of users:manage)`);
    }
  }
}

function find(state: IdentityState, id: string): UserRecord {
  const u = state.users.find((x) => x.id === id);
  if (!u) throw new NotFoundError("no such user");
  return u;
}

function view(u: UserRecord, bindings: readonly RoleBinding[]): UserView {
  const direct = bindings.find((b) => b.subject === localSubject(u.id) && b.direct);
  return {
    id: u.id,
    username: u.username,
    role: direct?.role ?? "",
    enabled: u.enabled,
    createdAt: u.createdAt,
  };
}

async function revoke(tx: UserAdminTx, subject: string, now: number): Promise<void> {
  try {
    await tx.revokeTokensOf(subject, now);
  } catch {
    throw new UpstreamError("tokens unavailable");
  }
}
