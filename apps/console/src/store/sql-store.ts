/** Store over a Db (PostgreSQL or PGlite): the same SQL on both. */
import { randomUUID } from "node:crypto";
import { ConflictError } from "../errors.ts";
import { insertAudit } from "./audit-row.ts";
import type { Db, Row, SqlExecutor } from "./db.ts";
import { ReadBatch } from "./read-batch.ts";
import { isUniqueViolation, json, num, toBinding, toSession, toToken, toUser } from "./rows.ts";
import type {
  AuditRow,
  CustomRole,
  NewAuditRow,
  NewUser,
  RoleBinding,
  SessionRecord,
  Store,
  TokenRecord,
  UserAdminTx,
  UserRecord,
} from "./store.ts";
import { lockIdentity, SqlUserAdmin } from "./user-admin-sql.ts";

/** Identity string of a local user (spec §5.2). */
export function localSubject(userId: string): string {
  return `local:${userId}`;
}

/** The Store over `db`. Call migrate(db) before use. */
export class SqlStore implements Store {
  readonly kind: "postgres" | "pglite";
  /** the settings pages' whole-table reads, batched per statement (read-batch.ts) */
  private readonly lists = new ReadBatch<Row[]>();
  constructor(private readonly db: Db) {
    this.kind = db.kind;
  }

  /** Rows of a parameterless whole-table read, from a read started after this call. */
  private list(sql: string): Promise<Row[]> {
    return this.lists.run(sql, () => this.db.query(sql));
  }

  async ping(): Promise<void> {
    await this.db.query("SELECT 1");
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async countUsers(): Promise<number> {
    const [r] = await this.db.query("SELECT count(*) AS n FROM users");
    return num(r?.n);
  }

  createUser(user: NewUser, now: number, audit?: NewAuditRow): Promise<UserRecord> {
    return this.db.transaction(async (tx) => {
      const u = await this.insertUser(tx, user, now);
      if (audit) await insertAudit(tx, { ...audit, detail: { ...audit.detail, userId: u.id } });
      return u;
    });
  }

  createUserIfNoneExist(user: NewUser, now: number): Promise<UserRecord | undefined> {
    return this.db.transaction(async (tx) => {
      await tx.exec("LOCK TABLE users IN EXCLUSIVE MODE");
      const [r] = await tx.query("SELECT count(*) AS n FROM users");
      if (num(r?.n) > 0) return undefined;
      return this.insertUser(tx, user, now);
    });
  }

  private async insertUser(tx: SqlExecutor, user: NewUser, now: number): Promise<UserRecord> {
    const id = randomUUID();
    try {
      const [row] = await tx.query(
        `INSERT INTO users (id, username, password_hash, enabled, created_at, password_changed_at)
         VALUES ($1, $2, $3, true, $4, $4) RETURNING *`,
        [id, user.username, user.passwordHash, now],
      );
      await tx.query(
        "INSERT INTO role_bindings (id, subject, role, direct, created_at) VALUES ($1, $2, $3, true, $4)",
        [randomUUID(), localSubject(id), user.role, now],
      );
      if (!row) throw new Error("insert returned no row");
      return toUser(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError(`username ${JSON.stringify(user.username)} is taken`);
      throw e;
    }
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const [r] = await this.db.query("SELECT * FROM users WHERE id = $1", [id]);
    return r ? toUser(r) : undefined;
  }

  async getUserByUsername(username: string): Promise<UserRecord | undefined> {
    const [r] = await this.db.query("SELECT * FROM users WHERE username = $1", [username]);
    return r ? toUser(r) : undefined;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.list("SELECT * FROM users ORDER BY username")).map(toUser);
  }

  async setPasswordHash(id: string, hash: string, changedAt: number): Promise<void> {
    await this.db.query(
      "UPDATE users SET password_hash = $2, password_changed_at = CASE WHEN $3::bigint > 0 THEN $3::bigint ELSE password_changed_at END WHERE id = $1",
      [id, hash, changedAt],
    );
  }

  userAdmin<T>(fn: (tx: UserAdminTx) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await lockIdentity(tx);
      return fn(new SqlUserAdmin(tx));
    });
  }

  async listBindings(subject?: string): Promise<RoleBinding[]> {
    const rows =
      subject === undefined
        ? await this.list("SELECT * FROM role_bindings ORDER BY subject, role")
        : await this.db.query("SELECT * FROM role_bindings WHERE subject = $1 ORDER BY role", [subject]);
    return rows.map(toBinding);
  }

  async listBindingsFor(subjects: readonly string[]): Promise<RoleBinding[]> {
    if (subjects.length === 0) return [];
    const rows = await this.db.query(
      "SELECT * FROM role_bindings WHERE subject = ANY($1::text[]) ORDER BY subject, role",
      [[...subjects]],
    );
    return rows.map(toBinding);
  }

  async listCustomRoles(): Promise<CustomRole[]> {
    const rows = await this.list("SELECT * FROM custom_roles ORDER BY name");
    return rows.map((r) => ({
      name: String(r.name),
      permissions: json<string[]>(r.permissions),
      createdAt: num(r.created_at),
    }));
  }

  async putCustomRole(role: Omit<CustomRole, "createdAt">, now: number): Promise<void> {
    await this.db.query(
      `INSERT INTO custom_roles (name, permissions, created_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (name) DO UPDATE SET permissions = EXCLUDED.permissions`,
      [role.name, JSON.stringify(role.permissions), now],
    );
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO sessions (id_hash, subject, display, groups, csrf, created_at, last_seen_at, expires_at, data)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::jsonb)`,
      [
        s.idHash,
        s.subject,
        s.display,
        JSON.stringify(s.groups),
        s.csrf,
        s.createdAt,
        s.lastSeenAt,
        s.expiresAt,
        JSON.stringify(s.data),
      ],
    );
  }

  async getSession(idHash: string): Promise<SessionRecord | undefined> {
    const [r] = await this.db.query("SELECT * FROM sessions WHERE id_hash = $1", [idHash]);
    return r ? toSession(r) : undefined;
  }

  async touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    await this.db.query(
      "UPDATE sessions SET last_seen_at = GREATEST(last_seen_at, $2::bigint) WHERE id_hash = $1",
      [idHash, lastSeenAt],
    );
  }

  async deleteSession(idHash: string): Promise<boolean> {
    return (
      (await this.db.query("DELETE FROM sessions WHERE id_hash = $1 RETURNING id_hash", [idHash])).length > 0
    );
  }

  async deleteSessionsOf(subject: string, keepIdHash?: string): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM sessions WHERE subject = $1 AND id_hash <> $2 RETURNING id_hash",
      [subject, keepIdHash ?? ""],
    );
    return rows.length;
  }

  async purgeSessions(now: number, idleMs: number): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM sessions WHERE expires_at <= $1 OR ($2::bigint > 0 AND last_seen_at + $2::bigint <= $1) RETURNING id_hash",
      [now, idleMs],
    );
    return rows.length;
  }

  async createToken(t: TokenRecord, audit?: NewAuditRow): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO api_tokens (id, name, owner, minted_by, secret_hash, created_at, last_used_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          t.id,
          t.name,
          t.owner,
          t.mintedBy,
          t.secretHash,
          t.createdAt,
          t.lastUsedAt,
          t.expiresAt,
          t.revokedAt,
        ],
      );
      if (audit) await insertAudit(tx, audit);
    });
  }

  async getTokenByHash(secretHash: string): Promise<TokenRecord | undefined> {
    const [r] = await this.db.query("SELECT * FROM api_tokens WHERE secret_hash = $1", [secretHash]);
    return r ? toToken(r) : undefined;
  }

  async getToken(id: string): Promise<TokenRecord | undefined> {
    const [r] = await this.db.query("SELECT * FROM api_tokens WHERE id = $1", [id]);
    return r ? toToken(r) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.list("SELECT * FROM api_tokens ORDER BY created_at DESC, id")).map(toToken);
  }

  revokeToken(id: string, now: number, audit?: NewAuditRow): Promise<boolean> {
    const q = "UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id";
    return this.changeAudited(q, [id, now], audit);
  }

  deleteSpentToken(id: string, now: number, audit?: NewAuditRow): Promise<boolean> {
    const q = `DELETE FROM api_tokens WHERE id = $1
       AND (revoked_at IS NOT NULL OR (expires_at IS NOT NULL AND expires_at <= $2)) RETURNING id`;
    return this.changeAudited(q, [id, now], audit);
  }

  /** Runs one `... RETURNING` change and, when it changed a row, appends `audit` in the same transaction. */
  private changeAudited(sql: string, params: unknown[], audit?: NewAuditRow): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const changed = (await tx.query(sql, params)).length > 0;
      if (changed && audit) await insertAudit(tx, audit);
      return changed;
    });
  }

  async markTokenUsed(id: string, at: number): Promise<void> {
    await this.db.query(
      "UPDATE api_tokens SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $2::bigint) WHERE id = $1",
      [id, at],
    );
  }

  async updateSession(idHash: string, groups: string[], data: Record<string, unknown>): Promise<void> {
    await this.db.query("UPDATE sessions SET groups = $2::jsonb, data = $3::jsonb WHERE id_hash = $1", [
      idHash,
      JSON.stringify(groups),
      JSON.stringify(data),
    ]);
  }

  appendAudit(row: NewAuditRow): Promise<void> {
    return insertAudit(this.db, row);
  }

  async listAudit(limit: number): Promise<AuditRow[]> {
    const rows = await this.db.query("SELECT * FROM audit ORDER BY at DESC, id DESC LIMIT $1", [limit]);
    return rows.map((r) => ({
      id: String(r.id),
      at: num(r.at),
      subject: r.subject === null ? null : String(r.subject),
      subjectDisplay: String(r.subject_display),
      action: String(r.action),
      outcome: r.outcome as AuditRow["outcome"],
      remoteAddr: String(r.remote_addr),
      detail: json<Record<string, unknown>>(r.detail),
    }));
  }
}
