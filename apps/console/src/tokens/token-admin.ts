/**
 * API token lifecycle (spec §2.12, §3.3, §5.6). A token is minted with a random secret shown once; only its
 * SHA-256 hash is stored. States: `active`; `revoked` (Revoke); `spent` (expiry reached). Revoke applies only to
 * active tokens, Delete only to revoked or spent ones (else 409). A token holds exactly `auth.defaultRole`, which
 * role resolution decides; nothing here grants anything. Mint, revoke and delete write their audit row in the
 * same transaction as the change.
 */

import { randomBytes, randomUUID } from "node:crypto";
import type { MintedToken, TokenState, TokenView } from "@svc/contract";
import { hashTokenSecret } from "../auth/authenticate.ts";
import { ConflictError, NotFoundError, UnprocessableError } from "../errors.ts";
import { type AuditActor, allowedRow } from "../store/audit-row.ts";
import type { Store, TokenRecord } from "../store/store.ts";

export type { MintedToken, TokenState, TokenView };

/** Prefix of every token secret (makes leaked secrets recognisable to scanners). */
export const TOKEN_PREFIX = "svct_";

/** The state of `t` at `now`. */
export function tokenState(t: TokenRecord, now: number): TokenState {
  if (t.revokedAt !== null) return "revoked";
  if (t.expiresAt !== null && now >= t.expiresAt) return "spent";
  return "active";
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Token administration over the store. */
export class TokenAdmin {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /** The view of `t` now. */
  view(t: TokenRecord): TokenView {
    return {
      id: t.id,
      name: t.name,
      owner: t.owner,
      createdAt: new Date(t.createdAt).toISOString(),
      lastUsedAt: iso(t.lastUsedAt),
      expiresAt: iso(t.expiresAt),
      state: tokenState(t, this.now()),
    };
  }

  /** Every token, newest first. */
  async list(): Promise<TokenView[]> {
    return (await this.store.listTokens()).map((t) => this.view(t));
  }

  /** Mints a token for `owner`; `expiresAt` null = no expiry, else it must lie in the future (422). */
  async mint(owner: string, name: string, expiresAt: number | null, actor: AuditActor): Promise<MintedToken> {
    const now = this.now();
    if (name.trim() === "") throw new UnprocessableError("name must not be empty");
    if (expiresAt !== null && expiresAt <= now)
      throw new UnprocessableError("expiresAt must be in the future");
    const secret = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const record: TokenRecord = {
      id: randomUUID(),
      name: name.trim(),
      owner,
      mintedBy: owner,
      secretHash: hashTokenSecret(secret),
      createdAt: now,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
    };
    await this.store.createToken(record, allowedRow(actor, now, { tokenId: record.id, name: record.name }));
    return { ...this.view(record), token: secret };
  }

  /** Revokes an active token: 404 unknown, 409 when already revoked or spent. */
  async revoke(id: string, actor: AuditActor): Promise<TokenView> {
    const t = await this.find(id);
    const state = tokenState(t, this.now());
    const row = allowedRow(actor, this.now(), { tokenId: t.id, name: t.name });
    if (state !== "active" || !(await this.store.revokeToken(id, this.now(), row))) {
      throw new ConflictError(
        `token is ${state === "active" ? "revoked" : state}; only active tokens revoke`,
      );
    }
    return this.view(await this.find(id));
  }

  /** Deletes a revoked or spent token: 404 unknown, 409 while active. */
  async delete(id: string, actor: AuditActor): Promise<TokenRecord> {
    const t = await this.find(id);
    const row = allowedRow(actor, this.now(), { tokenId: t.id, name: t.name });
    if (!(await this.store.deleteSpentToken(id, this.now(), row))) {
      throw new ConflictError("token is active; revoke it before deleting");
    }
    return t;
  }

  private async find(id: string): Promise<TokenRecord> {
    const t = /^[0-9a-f-]{36}$/.test(id) ? await this.store.getToken(id) : undefined;
    if (!t) throw new NotFoundError("no such token");
    return t;
  }
}
