/**
 * The live bus between console replicas (spec §8.4): what one replica publishes reaches the sockets of every
 * replica. With the shared store, Redis pub/sub on one channel (`<prefix>live`); a replica delivers its own
 * publications at once and ignores their echo from Redis (each message names its origin replica). Without the
 * store (one replica, or a store unreachable at startup), the in-process bus: this replica only.
 *
 * Only what a single replica produces goes through the bus (annotations, run progress). Controller events do not:
 * every replica ingests the controller stream itself (decisions.md, "Live fan-out across replicas").
 */
import { Topic } from "@svc/contract";
import type { Redis } from "ioredis";
import type { ConsoleLogger } from "../log.ts";
import type { LiveBusPort } from "./hub.ts";

/** Largest bus message (bytes of JSON); larger publications are dropped with a warning. */
export const LIVE_BUS_MAX_MESSAGE = 1024 * 1024;

/** Delivers a publication to this replica's sockets. */
export type Deliver = (topic: string, data: unknown) => void;

/** A bus: start() before publishing; stop() closes what it opened. */
export interface LiveBus extends LiveBusPort {
  readonly kind: "redis" | "in-process";
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** This replica only. */
export class InProcessBus implements LiveBus {
  readonly kind = "in-process";
  constructor(private readonly deliver: Deliver) {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  publish(topic: string, data: unknown): void {
    this.deliver(topic, data);
  }
}

/** Every replica sharing `redis` and `prefix`. */
export class RedisBus implements LiveBus {
  readonly kind = "redis";
  private sub: Redis | undefined;
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly replicaId: string,
    private readonly deliver: Deliver,
    private readonly log: ConsoleLogger,
  ) {
    this.channel = `${prefix}live`;
  }

  /** Subscribes on a connection of its own (a subscribed connection can run no other command). */
  async start(): Promise<void> {
    const sub = this.redis.duplicate();
    sub.on("error", () => {}); // ioredis reconnects and resubscribes by itself
    sub.on("message", (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    this.sub = sub;
    await sub.subscribe(this.channel);
  }

  async stop(): Promise<void> {
    this.sub?.disconnect();
    this.sub = undefined;
  }

  publish(topic: string, data: unknown): void {
    const text = JSON.stringify({ origin: this.replicaId, topic, data });
    if (Buffer.byteLength(text) > LIVE_BUS_MAX_MESSAGE) {
      this.log.warn({ topic, bytes: Buffer.byteLength(text) }, "live publication too large: dropped");
      return;
    }
    this.deliver(topic, data);
    this.redis.publish(this.channel, text).catch((e: unknown) => {
      this.log.warn({ topic, err: String(e) }, "live publication not shared with other replicas");
    });
  }

  private receive(text: string): void {
    if (text.length > LIVE_BUS_MAX_MESSAGE) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg !== "object" || msg === null) return;
    const origin = Object.hasOwn(msg, "origin") ? (msg as { origin: unknown }).origin : undefined;
    const topic = Object.hasOwn(msg, "topic") ? (msg as { topic: unknown }).topic : undefined;
    if (origin === this.replicaId || !Object.hasOwn(msg, "data")) return;
    const ok = Topic.safeParse(topic);
    if (!ok.success) return;
    this.deliver(ok.data, (msg as { data: unknown }).data);
  }
}

/**
 * The bus for a replica: Redis when a shared store is given and subscribing works within `timeoutMs` (default
 * 5 s), else in-process (warned).
 */
export async function openLiveBus(opts: {
  redis: Redis | undefined;
  prefix: string;
  replicaId: string;
  deliver: Deliver;
  log: ConsoleLogger;
  timeoutMs?: number;
}): Promise<LiveBus> {
  if (opts.redis) {
    const bus = new RedisBus(opts.redis, opts.prefix, opts.replicaId, opts.deliver, opts.log);
    const timeoutMs = opts.timeoutMs ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        bus.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return bus;
    } catch (e) {
      await bus.stop();
      opts.log.warn(
        { err: String(e) },
        "live bus: shared store refused the subscription; in-process bus for this replica",
      );
    } finally {
      clearTimeout(timer);
    }
  }
  return new InProcessBus(opts.deliver);
}
