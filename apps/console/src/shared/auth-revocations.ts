/**
 * Revocations between console replicas (issue 36): when a replica changes something that may revoke access (a user,
 * a role or binding, a token, a session), it empties its own AuthCache and publishes its replica id on
 * `<prefix>auth`; every other replica empties its cache on receipt. Messages carry no data beyond the origin, so a
 * forged one can only make a replica re-read the store. Without the shared store the cache's age bound alone carries
 * revocations to other replicas (auth/auth-cache.ts).
 */
import type { Redis } from "ioredis";
import type { AuthCache } from "../auth/auth-cache.ts";
import type { ConsoleLogger } from "../log.ts";

/** Largest message read from the channel (a replica id). */
const MAX_MESSAGE = 256;

/** The revocation channel of one replica over `redis`. */
export class RedisRevocations {
  private sub: Redis | undefined;
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly replicaId: string,
    private readonly cache: AuthCache,
    private readonly log: ConsoleLogger,
  ) {
    this.channel = `${prefix}auth`;
  }

  /** Subscribes on a connection of its own and routes the cache's local revocations to the channel. */
  async start(): Promise<void> {
    const sub = this.redis.duplicate();
    sub.on("error", () => {}); // ioredis reconnects and resubscribes by itself
    sub.on("message", (channel: string, text: string) => {
      if (channel !== this.channel || text.length > MAX_MESSAGE || text === this.replicaId) return;
      this.cache.clear();
    });
    // a reconnect may have missed messages: start over from the store
    sub.on("ready", () => this.cache.clear());
    this.sub = sub;
    await sub.subscribe(this.channel);
    this.cache.onRevoke(() => this.publish());
  }

  async stop(): Promise<void> {
    this.cache.onRevoke(undefined);
    this.sub?.disconnect();
    this.sub = undefined;
  }

  private publish(): void {
    this.redis.publish(this.channel, this.replicaId).catch((e: unknown) => {
      this.log.warn({ err: String(e) }, "revocation not shared with other replicas (their cache ages out)");
    });
  }
}
