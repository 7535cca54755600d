/**
 * Sessions in Redis for a multi-replica console (spec §8.4), behind the same SessionBackend as the database.
 * One hash per session (`<prefix>session:<idHash>`: the record as JSON plus `seen`, the last-seen stamp) and one set
 * per subject (`<prefix>subject:<subject>`) so a user's sessions can be ended together. Each session key expires at
 * the earlier of its absolute bound and (idle bound on) last seen + idleBound(idle timeout) (the idle timeout plus
 * the stamp interval, as SessionManager judges it), so Redis purges expired sessions itself; touching slides that
 * expiry.
 */
import type { Redis } from "ioredis";
import { idleBound, type SessionBackend } from "../auth/sessions.ts";
import type { SessionRecord } from "../store/store.ts";

const TOUCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
if tonumber(ARGV[1]) > seen then
  redis.call('HSET', KEYS[1], 'seen', ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return 1`;

const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'rec', ARGV[1])
return 1`;

/** SessionBackend over Redis under `prefix`; `idleMs` 0 = no idle bound. */
export class RedisSessions implements SessionBackend {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleMs: number,
  ) {}

  private key(idHash: string): string {
    return `${this.prefix}session:${idHash}`;
  }

  private subjectKey(subject: string): string {
    return `${this.prefix}subject:${subject}`;
  }

  private expiryOf(expiresAt: number, seen: number): number {
    return this.idleMs > 0 ? Math.min(expiresAt, seen + idleBound(this.idleMs)) : expiresAt;
  }

  async createSession(s: SessionRecord): Promise<void> {
    const { lastSeenAt, ...rec } = s;
    await this.redis
      .multi()
      .hset(this.key(s.idHash), "rec", JSON.stringify(rec), "seen", String(lastSeenAt))
      .pexpireat(this.key(s.idHash), this.expiryOf(s.expiresAt, lastSeenAt))
      .sadd(this.subjectKey(s.subject), s.idHash)
      .pexpireat(this.subjectKey(s.subject), s.expiresAt)
      .exec();
  }

  async getSession(idHash: string): Promise<SessionRecord | undefined> {
    const [rec, seen] = await this.redis.hmget(this.key(idHash), "rec", "seen");
    if (!rec) return undefined;
    return { ...(JSON.parse(rec) as Omit<SessionRecord, "lastSeenAt">), lastSeenAt: Number(seen ?? 0) };
  }

  async touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    const s = await this.getSession(idHash);
    if (!s) return;
    const at = this.expiryOf(s.expiresAt, lastSeenAt);
    await this.redis.eval(TOUCH, 1, this.key(idHash), String(lastSeenAt), String(at));
  }

  async updateSession(idHash: string, groups: string[], data: Record<string, unknown>): Promise<void> {
    const s = await this.getSession(idHash);
    if (!s) return;
    const { lastSeenAt: _, ...rec } = { ...s, groups, data };
    await this.redis.eval(UPDATE, 1, this.key(idHash), JSON.stringify(rec));
  }

  async deleteSession(idHash: string): Promise<boolean> {
    const s = await this.getSession(idHash);
    const n = await this.redis.del(this.key(idHash));
    if (s) await this.redis.srem(this.subjectKey(s.subject), idHash);
    return n > 0;
  }

  async deleteSessionsOf(subject: string, keepIdHash?: string): Promise<number> {
    const ids = (await this.redis.smembers(this.subjectKey(subject))).filter((id) => id !== keepIdHash);
    if (ids.length === 0) return 0;
    const n = await this.redis.del(...ids.map((id) => this.key(id)));
    await this.redis.srem(this.subjectKey(subject), ...ids);
    return n;
  }

  /** Redis expires sessions itself (see the key expiry above); nothing to sweep. */
  async purgeSessions(): Promise<number> {
    return 0;
  }
}
