/** Row <-> record mapping shared by the SQL store. bigint columns arrive as strings (pg) or numbers (PGlite). */
import type { Row } from "./db.ts";
import type { RoleBinding, SessionRecord, TokenRecord, UserRecord } from "./store.ts";

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const json = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

export function toUser(r: Row): UserRecord {
  return {
    id: String(r.id),
    username: String(r.username),
    passwordHash: String(r.password_hash),
    enabled: Boolean(r.enabled),
    createdAt: num(r.created_at),
    passwordChangedAt: num(r.password_changed_at),
    reenabledAt: num(r.reenabled_at),
  };
}

export function toSession(r: Row): SessionRecord {
  return {
    idHash: String(r.id_hash),
    subject: String(r.subject),
    display: String(r.display),
    groups: json<string[]>(r.groups),
    csrf: String(r.csrf),
    createdAt: num(r.created_at),
    lastSeenAt: num(r.last_seen_at),
    expiresAt: num(r.expires_at),
    data: json<Record<string, unknown>>(r.data),
  };
}

export function toToken(r: Row): TokenRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    owner: String(r.owner),
    mintedBy: String(r.minted_by),
    secretHash: String(r.secret_hash),
    createdAt: num(r.created_at),
    lastUsedAt: numOrNull(r.last_used_at),
    expiresAt: numOrNull(r.expires_at),
    revokedAt: numOrNull(r.revoked_at),
  };
}

export function toBinding(r: Row): RoleBinding {
  return {
    id: String(r.id),
    subject: String(r.subject),
    role: String(r.role),
    direct: Boolean(r.direct),
    createdAt: num(r.created_at),
  };
}

export function isUniqueViolation(e: unknown): boolean {
  return e !== null && typeof e === "object" && "code" in e && (e as { code: unknown }).code === "23505";
}
