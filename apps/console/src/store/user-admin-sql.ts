/** UserAdminTx over one transaction's SqlExecutor. */
import { randomUUID } from "node:crypto";
import { ConflictError } from "../errors.ts";
import { insertAudit } from "./audit-row.ts";
import type { SqlExecutor } from "./db.ts";
import { isUniqueViolation, json, num, toBinding, toUser } from "./rows.ts";
import type { CustomRole, NewAuditRow, RoleBinding, UserAdminTx, UserRecord } from "./store.ts";

/** Takes the identity lock; concurrent administrators (and replicas) queue behind it until COMMIT. */
export async function lockIdentity(tx: SqlExecutor): Promise<void> {
  await tx.exec("LOCK TABLE users, role_bindings, custom_roles IN SHARE ROW EXCLUSIVE MODE");
}

/** The user-administration operations inside transaction `tx`. */
export class SqlUserAdmin implements UserAdminTx {
  constructor(private readonly tx: SqlExecutor) {}

  async listUsers(): Promise<UserRecord[]> {
    return (await this.tx.query("SELECT * FROM users ORDER BY username")).map(toUser);
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const [r] = await this.tx.query("SELECT * FROM users WHERE id = $1", [id]);
    return r ? toUser(r) : undefined;
  }

  async listBindings(): Promise<RoleBinding[]> {
    return (await this.tx.query("SELECT * FROM role_bindings ORDER BY subject, role")).map(toBinding);
  }

  async listCustomRoles(): Promise<CustomRole[]> {
    const rows = await this.tx.query("SELECT * FROM custom_roles ORDER BY name");
    return rows.map((r) => ({
      name: String(r.name),
      permissions: json<string[]>(r.permissions),
      createdAt: num(r.created_at),
    }));
  }

  async setDirectRole(subject: string, role: string, now: number): Promise<void> {
    await this.tx.query("DELETE FROM role_bindings WHERE subject = $1 AND (direct OR role = $2)", [
      subject,
      role,
    ]);
    await this.tx.query(
      "INSERT INTO role_bindings (id, subject, role, direct, created_at) VALUES ($1, $2, $3, true, $4)",
      [randomUUID(), subject, role, now],
    );
  }

  async setEnabled(id: string, enabled: boolean, now: number): Promise<void> {
    await this.tx.query(
      "UPDATE users SET enabled = $2, reenabled_at = CASE WHEN $2 THEN $3::bigint ELSE reenabled_at END WHERE id = $1",
      [id, enabled, now],
    );
  }

  async deleteUser(id: string): Promise<void> {
    await this.tx.query("DELETE FROM role_bindings WHERE subject = $1", [`local:${id}`]);
    await this.tx.query("DELETE FROM users WHERE id = $1", [id]);
  }

  async revokeTokensOf(subject: string, now: number): Promise<number> {
    const rows = await this.tx.query(
      "UPDATE api_tokens SET revoked_at = $2 WHERE (owner = $1 OR minted_by = $1) AND revoked_at IS NULL RETURNING id",
      [subject, now],
    );
    return rows.length;
  }

  async deleteSessionsOf(subject: string, keepIdHash?: string): Promise<number> {
    const rows = await this.tx.query(
      "DELETE FROM sessions WHERE subject = $1 AND id_hash <> $2 RETURNING id_hash",
      [subject, keepIdHash ?? ""],
    );
    return rows.length;
  }

  async setPasswordHash(id: string, hash: string, changedAt: number): Promise<void> {
    await this.tx.query("UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1", [
      id,
      hash,
      changedAt,
    ]);
  }

  async addBinding(subject: string, role: string, now: number): Promise<RoleBinding> {
    try {
      const [r] = await this.tx.query(
        "INSERT INTO role_bindings (id, subject, role, direct, created_at) VALUES ($1, $2, $3, false, $4) RETURNING *",
        [randomUUID(), subject, role, now],
      );
      if (!r) throw new Error("insert returned no row");
      return toBinding(r);
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError(`${subject} already holds ${role}`);
      throw e;
    }
  }

  async deleteBinding(id: string): Promise<boolean> {
    return (await this.tx.query("DELETE FROM role_bindings WHERE id = $1 RETURNING id", [id])).length > 0;
  }

  async putCustomRole(name: string, permissions: readonly string[], now: number): Promise<void> {
    await this.tx.query(
      `INSERT INTO custom_roles (name, permissions, created_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (name) DO UPDATE SET permissions = EXCLUDED.permissions`,
      [name, JSON.stringify(permissions), now],
    );
  }

  appendAudit(row: NewAuditRow): Promise<void> {
    return insertAudit(this.tx, row);
  }

  async deleteCustomRole(name: string): Promise<boolean> {
    return (
      (await this.tx.query("DELETE FROM custom_roles WHERE name = $1 RETURNING name", [name])).length > 0
    );
  }
}
