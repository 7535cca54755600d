/**
 * The console store: one interface the rest of the console uses, implemented by SqlStore over PostgreSQL and
 * PGlite with the same SQL. Times are epoch milliseconds. Every multi-row change runs in one transaction.
 */
import type { CustomRole, RoleBinding } from "@svc/contract";

export type { CustomRole, RoleBinding };

/** A local user account (spec §3.2). Identity string `local:<id>`. */
export interface UserRecord {
  id: string;
  username: string;
  passwordHash: string;
  enabled: boolean;
  createdAt: number;
  /** last password set/reset; sessions created before it are ended (except the changer's own) */
  passwordChangedAt: number;
  /** last re-enable; sessions created before it are ended */
  reenabledAt: number;
}

/** A sign-in session. Only a hash of the session id is stored. */
export interface SessionRecord {
  idHash: string;
  subject: string;
  display: string;
  groups: string[];
  /** CSRF token bound to this session */
  csrf: string;
  createdAt: number;
  lastSeenAt: number;
  /** absolute bound */
  expiresAt: number;
  /** mode-specific state (OIDC tokens) */
  data: Record<string, unknown>;
}

/** An API token (spec §3.3). Only a hash of the secret is stored. */
export interface TokenRecord {
  id: string;
  name: string;
  owner: string;
  mintedBy: string;
  secretHash: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

/** Audit outcomes (spec §2.12). */
export type AuditOutcome = "allowed" | "denied" | "error";

/** An audit row to append. */
export interface NewAuditRow {
  at: number;
  subject: string | null;
  subjectDisplay: string;
  /** e.g. `POST /api/v1/auth/login` */
  action: string;
  outcome: AuditOutcome;
  remoteAddr: string;
  detail?: Record<string, unknown>;
}

/** A stored audit row. */
export interface AuditRow extends Required<NewAuditRow> {
  id: string;
}

/** A new local user with its one direct role. */
export interface NewUser {
  username: string;
  passwordHash: string;
  role: string;
}

/**
 * Reads and writes of user and role administration inside one transaction that holds the identity lock, so a
 * guard (the last administrator) checked on what it reads still holds when it commits.
 */
export interface UserAdminTx {
  listUsers(): Promise<UserRecord[]>;
  getUser(id: string): Promise<UserRecord | undefined>;
  listBindings(): Promise<RoleBinding[]>;
  listCustomRoles(): Promise<CustomRole[]>;
  /** Replaces the subject's direct binding with `role`; other bindings stay. */
  setDirectRole(subject: string, role: string, now: number): Promise<void>;
  /** Disables or re-enables; re-enabling stamps `reenabledAt` so older sessions end. */
  setEnabled(id: string, enabled: boolean, now: number): Promise<void>;
  /** Deletes the account and every binding of its subject. */
  deleteUser(id: string): Promise<void>;
  /** Revokes every active token owned or minted by `subject`; resolves with the count. */
  revokeTokensOf(subject: string, now: number): Promise<number>;
  deleteSessionsOf(subject: string, keepIdHash?: string): Promise<number>;
  /** Sets a password hash and stamps the change. */
  setPasswordHash(id: string, hash: string, changedAt: number): Promise<void>;
  /** Adds a (non-direct) binding; ConflictError when the subject already holds the role. */
  addBinding(subject: string, role: string, now: number): Promise<RoleBinding>;
  /** Deletes a binding by id; true when it existed. */
  deleteBinding(id: string): Promise<boolean>;
  putCustomRole(name: string, permissions: readonly string[], now: number): Promise<void>;
  deleteCustomRole(name: string): Promise<boolean>;
  /** Appends an audit row in this transaction: it commits with the change it records, or neither does. */
  appendAudit(row: NewAuditRow): Promise<void>;
}

/** The console's persistent state. */
export interface Store {
  readonly kind: "postgres" | "pglite";
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;

  countUsers(): Promise<number>;
  /**
   * Creates a user and its direct role binding in one transaction, with `audit` (its detail gains `userId`).
   * ConflictError when the username is taken.
   */
  createUser(user: NewUser, now: number, audit?: NewAuditRow): Promise<UserRecord>;
  /** Creates `user` only while the users table is empty (locked against concurrent replicas); else undefined. */
  createUserIfNoneExist(user: NewUser, now: number): Promise<UserRecord | undefined>;
  getUser(id: string): Promise<UserRecord | undefined>;
  getUserByUsername(username: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  /** Sets a new password hash; `changedAt` 0 keeps the stamp (a rehash at sign-in, not a change). */
  setPasswordHash(id: string, hash: string, changedAt: number): Promise<void>;

  /** Runs `fn` in one transaction holding the identity lock (users, bindings, roles). */
  userAdmin<T>(fn: (tx: UserAdminTx) => Promise<T>): Promise<T>;

  listBindings(subject?: string): Promise<RoleBinding[]>;
  /** Bindings whose subject is one of `subjects`. */
  listBindingsFor(subjects: readonly string[]): Promise<RoleBinding[]>;
  listCustomRoles(): Promise<CustomRole[]>;
  putCustomRole(role: Omit<CustomRole, "createdAt">, now: number): Promise<void>;

  createSession(s: SessionRecord): Promise<void>;
  getSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, lastSeenAt: number): Promise<void>;
  /** Deletes one session; resolves true when it existed. */
  deleteSession(idHash: string): Promise<boolean>;
  /** Deletes every session of `subject` except `keepIdHash`; resolves with the count. */
  deleteSessionsOf(subject: string, keepIdHash?: string): Promise<number>;
  /**
   * Deletes sessions past their absolute bound or (idleMs > 0) whose last-seen stamp is idleMs old (the caller
   * passes the idle bound it judges by, idleBound() in auth/sessions.ts); resolves with the count.
   */
  purgeSessions(now: number, idleMs: number): Promise<number>;

  /** Stores a token; `audit` is appended in the same transaction. */
  createToken(t: TokenRecord, audit?: NewAuditRow): Promise<void>;
  getTokenByHash(secretHash: string): Promise<TokenRecord | undefined>;
  getToken(id: string): Promise<TokenRecord | undefined>;
  /** Every token, newest first. */
  listTokens(): Promise<TokenRecord[]>;
  /** Revokes an unrevoked token; true when this call revoked it (and appended `audit` in its transaction). */
  revokeToken(id: string, now: number, audit?: NewAuditRow): Promise<boolean>;
  /** Deletes a token only when it is revoked or expired at `now`; true when deleted (with `audit`, as above). */
  deleteSpentToken(id: string, now: number, audit?: NewAuditRow): Promise<boolean>;
  /** Stamps the last use (never moves it back). */
  markTokenUsed(id: string, at: number): Promise<void>;
  /** Replaces a session's groups and mode-specific data (OIDC refresh). */
  updateSession(idHash: string, groups: string[], data: Record<string, unknown>): Promise<void>;

  appendAudit(row: NewAuditRow): Promise<void>;
  /** Newest first, at most `limit` rows. */
  listAudit(limit: number): Promise<AuditRow[]>;
}
