/**
 * Sign-in sessions (spec §3.6, §5.4): random ids handed out in a cookie, stored only as a SHA-256 hash; an
 * absolute bound (`auth.session.ttl`) and a sliding idle bound (`auth.session.idleTimeout`, 0 = off, never past
 * the absolute bound). A session past either bound is deleted when presented (the caller gets 401) and by the
 * periodic purge.
 *
 * The idle bound is exact from below and bounded from above: the last-seen stamp is written only every
 * g = touchInterval(idleTimeout), and a session ends once idleTimeout + g has passed since its stamp
 * (idleBound()). Every request within g of a stamp is no later than stamp + g, so a session whose requests are all
 * less than idleTimeout apart never ends; one left unused ends between idleTimeout and idleTimeout + g after its
 * last request (1 s -> at most 1.333 s; 30 s -> 40 s; 1 h -> 1 h 15 s). The stamp lives in the shared store, so
 * this holds across console replicas.
 */
import { createHash, randomBytes } from "node:crypto";
import type { SessionRecord, Store } from "../store/store.ts";
import type { AuthCache } from "./auth-cache.ts";

/** Where sessions are kept: the database (Store) or Redis (replicas > 1). */
export type SessionBackend = Pick<
  Store,
  | "createSession"
  | "getSession"
  | "touchSession"
  | "deleteSession"
  | "deleteSessionsOf"
  | "purgeSessions"
  | "updateSession"
>;

/** Hash under which a session id is stored. */
export function hashSessionId(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}

/** A freshly created session: the cookie values to hand out. */
export interface NewSession {
  id: string;
  csrf: string;
  record: SessionRecord;
}

/** Result of looking up a presented session id. */
export type SessionLookup =
  | { state: "active"; record: SessionRecord }
  | { state: "expired" }
  | { state: "unknown" };

/** Session bounds in milliseconds. */
export interface SessionBounds {
  ttlMs: number;
  /** 0 disables the idle bound */
  idleMs: number;
}

// Sliding expiry is written at most this often per session, to keep reads from becoming writes.
const TOUCH_EVERY_MS = 15_000;

/**
 * How often the idle stamp is written (g): every 15 s, or every third of a shorter idle timeout (a timeout of 1 s
 * is stamped every 333 ms). 0 (no idle bound): every 15 s.
 */
export function touchInterval(idleMs: number): number {
  return idleMs > 0 ? Math.min(TOUCH_EVERY_MS, Math.floor(idleMs / 3)) : TOUCH_EVERY_MS;
}

/**
 * Time since the last-seen stamp after which a session has ended: idleTimeout + g (0 = no idle bound). The stamp
 * can lag the last request by up to g, so judging against idleTimeout alone would end sessions in use.
 */
export function idleBound(idleMs: number): number {
  return idleMs > 0 ? idleMs + touchInterval(idleMs) : 0;
}

/** Presented session ids whose hashes are remembered; beyond it the memo starts again (bounds what junk fills). */
const HASH_MEMO_ENTRIES = 10_000;

/** Creates, validates, slides and purges sessions in the store. */
export class SessionManager {
  /** hashes of recently presented ids: a SHA-256 per request was ~3 % of the console's CPU under load */
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly store: SessionBackend,
    private readonly bounds: SessionBounds,
    private readonly now: () => number,
    /** keeps looked-up records for a short while; ending or changing a session revokes through it */
    private readonly cache?: AuthCache,
  ) {}

  /** Creates a session for `subject`. */
  async create(
    subject: string,
    display: string,
    groups: string[],
    data: Record<string, unknown> = {},
  ): Promise<NewSession> {
    const id = randomBytes(32).toString("base64url");
    const csrf = randomBytes(24).toString("base64url");
    const t = this.now();
    const record: SessionRecord = {
      idHash: hashSessionId(id),
      subject,
      display,
      groups,
      csrf,
      createdAt: t,
      lastSeenAt: t,
      expiresAt: t + this.bounds.ttlMs,
      data,
    };
    await this.store.createSession(record);
    return { id, csrf, record };
  }

  /** Looks up a presented id; an expired session is deleted on the spot. Slides the idle bound when active. */
  async lookup(id: string): Promise<SessionLookup> {
    if (id === "" || id.length > 200) return { state: "unknown" };
    let idHash = this.hashes.get(id);
    if (idHash === undefined) {
      idHash = hashSessionId(id);
      if (this.hashes.size >= HASH_MEMO_ENTRIES) this.hashes.clear();
      this.hashes.set(id, idHash);
    }
    const c = this.cache;
    let record = c
      ? await c.through(c.sessions, idHash, () => this.store.getSession(idHash))
      : await this.store.getSession(idHash);
    if (!record) return { state: "unknown" };
    const t = this.now();
    if (c && this.isExpired(record, t)) {
      // a cached last-seen stamp may lag another replica's touch: judge what the store holds now
      c.sessions.delete(idHash);
      record = await this.store.getSession(idHash);
      if (!record) return { state: "unknown" };
    }
    if (this.isExpired(record, t)) {
      await this.store.deleteSession(idHash);
      return { state: "expired" };
    }
    if (t - record.lastSeenAt >= touchInterval(this.bounds.idleMs)) {
      await this.store.touchSession(idHash, t);
      record.lastSeenAt = t;
    }
    return { state: "active", record };
  }

  /**
   * True while the session `idHash` exists and is within its bounds. Unlike lookup() it never slides the idle
   * bound: an open WebSocket asks this, and a tab left open must not keep its session alive.
   */
  async alive(idHash: string): Promise<boolean> {
    const record = await this.store.getSession(idHash);
    return record !== undefined && !this.isExpired(record, this.now());
  }

  /** True when `record` is past its absolute or idle bound at `t`. */
  isExpired(record: SessionRecord, t: number): boolean {
    if (t >= record.expiresAt) return true;
    return this.bounds.idleMs > 0 && t - record.lastSeenAt >= idleBound(this.bounds.idleMs);
  }

  /** Deletes a session by its id hash (logout); true when it existed. */
  async end(idHash: string): Promise<boolean> {
    try {
      return await this.store.deleteSession(idHash);
    } finally {
      this.cache?.revoke();
    }
  }

  /** Replaces a session's groups and data (OIDC refresh). */
  async update(idHash: string, groups: string[], data: Record<string, unknown>): Promise<void> {
    try {
      await this.store.updateSession(idHash, groups, data);
    } finally {
      this.cache?.revoke();
    }
  }

  /** Deletes every session of `subject` except `keepIdHash`; resolves with the count. */
  async endAllOf(subject: string, keepIdHash?: string): Promise<number> {
    try {
      return await this.store.deleteSessionsOf(subject, keepIdHash);
    } finally {
      this.cache?.revoke();
    }
  }

  /** Deletes every expired session; resolves with how many. */
  purge(): Promise<number> {
    return this.store.purgeSessions(this.now(), idleBound(this.bounds.idleMs));
  }
}
