/**
 * LiveHub: the live fan-out of one console replica (spec §6.2). Topics `live`, `topology`, `matrix` and
 * `run:{id}`; each has a sequence number (+1 per event), a replay ring of the newest WS_REPLAY_RING frames and the
 * clients holding it. Every frame is serialized once (UTF-8 bytes) and handed to each client as the same buffer.
 *
 * Where events come from:
 * - `event()` / `fed()` / `missed()` (FeedSink): the controller stream this replica ingests itself. Every replica
 *   ingests the stream on its own, so these are delivered to this replica's sockets only (never through the bus):
 *   one event reaches each socket once, whatever the replica count.
 * - `publish(topic, data)`: what only one replica produces (annotations, a run's progress): through the bus, so
 *   sockets on every replica get it (Redis pub/sub with replicas > 1, else in-process).
 * - `deliver(topic, data)`: this replica's sockets only (matrix pushes, which each replica computes itself).
 *
 * Resume: a subscription with `since` and this replica's id is replayed from the ring (a gap `beyond-ring` first
 * when the ring no longer reaches back to `since`); with another replica's id (or none) the cursor means nothing
 * here and the client is told `other-replica`. A client whose socket holds more than `slowBytes` unsent is skipped
 * (never buffered without bound) and, once it drained below half of that, told a gap `slow-consumer` for what it
 * missed. The upstream stream's own losses (`missed`) become a gap `upstream` on `live`, kept in the ring.
 */
import { randomBytes } from "node:crypto";
import {
  type FeedEvent,
  type TopologyPush,
  WS_REPLAY_RING,
  type WsServerMessage,
  type WsSubscribe,
} from "@svc/contract";
import type { FeedSink } from "./feed-sink.ts";
import { ReplayRing } from "./replay-ring.ts";

/** One socket as the hub sees it. */
export interface LiveClient {
  /** bytes queued on the socket and not yet written to the kernel */
  readonly bufferedAmount: number;
  /** one text message (UTF-8) */
  send(frame: Buffer): void;
}

/**
 * Bytes queued on a socket above which its events are skipped (and a slow-consumer gap sent later): about 0.2 s
 * of a 1,000 events/s feed, and at most 64 MiB over 1,024 sockets.
 */
export const WS_SLOW_CONSUMER_BYTES = 64 * 1024;
/** The same bound while replaying a resumed subscription (a full ring of ordinary events fits). */
export const WS_REPLAY_BYTES = 2 * 1024 * 1024;
/** Run topics kept (ring and sequence) without a subscriber; the least recently used beyond are forgotten. */
export const WS_IDLE_RUN_TOPICS = 256;

type GapReason = "other-replica" | "beyond-ring" | "slow-consumer" | "upstream";

interface Subscription {
  /** first and last seq skipped while the socket was over its bound */
  lagFrom?: number;
  lagTo?: number;
}

interface TopicState {
  name: string;
  seq: number;
  ring: ReplayRing;
  subs: Map<LiveClient, Subscription>;
}

/** Where `publish` goes: the bus delivers to this replica (deliver) and to every other one. */
export interface LiveBusPort {
  readonly kind: "redis" | "in-process";
  publish(topic: string, data: unknown): void;
}

/** Options of LiveHub. */
export interface LiveHubOptions {
  /** this replica's id (default: 12 random base64url characters, new each process) */
  replicaId?: string;
  /** frames kept per topic for replay (default WS_REPLAY_RING) */
  ringSize?: number;
  /** slow-consumer bound in bytes (default WS_SLOW_CONSUMER_BYTES) */
  slowBytes?: number;
  /** the bound while replaying (default WS_REPLAY_BYTES, at least slowBytes) */
  replayBytes?: number;
}

/** A new replica id: random, per process lifetime (a restarted console is another replica for cursors). */
export function newReplicaId(): string {
  return randomBytes(9).toString("base64url");
}

function frame(msg: WsServerMessage): Buffer {
  return Buffer.from(JSON.stringify(msg));
}

/** The live fan-out of one replica; also the FeedSink the event ingester hands events to. */
export class LiveHub implements FeedSink {
  readonly replicaId: string;
  private readonly ringSize: number;
  private readonly slowBytes: number;
  private readonly replayBytes: number;
  private readonly topics = new Map<string, TopicState>();
  private readonly clients = new Map<LiveClient, Set<string>>();
  private status: { fed: boolean; since: string | null } = { fed: false, since: null };
  private bus: LiveBusPort | undefined;
  private readonly activeListeners: ((topic: string) => void)[] = [];

  constructor(opts: LiveHubOptions = {}) {
    this.replicaId = opts.replicaId ?? newReplicaId();
    this.ringSize = opts.ringSize ?? WS_REPLAY_RING;
    this.slowBytes = opts.slowBytes ?? WS_SLOW_CONSUMER_BYTES;
    this.replayBytes = Math.max(this.slowBytes, opts.replayBytes ?? WS_REPLAY_BYTES);
  }

  /** Routes `publish` through `bus` (which calls deliver() here); without one, publish delivers here only. */
  useBus(bus: LiveBusPort | undefined): void {
    this.bus = bus;
  }

  /** Which bus carries publish() to the other replicas ("none" before the server started). */
  get busKind(): "redis" | "in-process" | "none" {
    return this.bus?.kind ?? "none";
  }

  /** Calls `fn(topic)` when a topic gets its first subscriber (the matrix pusher takes its baseline then). */
  onActive(fn: (topic: string) => void): void {
    this.activeListeners.push(fn);
  }

  // ---- FeedSink: the controller stream this replica ingests ----

  /** An ingested controller event: on `live`, and on `topology` when it is a TopologyChanged. */
  event(event: FeedEvent): void {
    this.deliver("live", event);
    if (event.type === "TopologyChanged") {
      const push: TopologyPush = { at: event.at, event };
      this.deliver("topology", push);
    }
  }

  /** The stream connected or dropped: every socket is told (status) when that changes. */
  fed(fed: boolean, at: number): void {
    if (fed === this.status.fed && this.status.since !== null) return;
    const d = new Date(at);
    this.status = { fed, since: Number.isFinite(d.getTime()) ? d.toISOString() : null };
    const f = this.statusFrame();
    for (const client of this.clients.keys()) client.send(f);
  }

  /** The controller said `count` events were lost: a gap `upstream` on `live` (kept in the ring for replay). */
  missed(count: number): void {
    const n = Math.min(1_000_000_000, Math.max(1, Math.floor(Number.isFinite(count) ? count : 1)));
    const t = this.topic("live");
    const from = t.seq + 1;
    t.seq += n;
    const f = frame({ type: "gap", topic: "live", from, to: t.seq, reason: "upstream" });
    t.ring.push({ first: from, last: t.seq, frame: f });
    for (const [client, sub] of t.subs) this.sendTo(t, client, sub, f, from, t.seq);
  }

  // ---- other sources ----

  /** Publishes to every replica's sockets (through the bus when there is one). */
  publish(topic: string, data: unknown): void {
    if (this.bus) this.bus.publish(topic, data);
    else this.deliver(topic, data);
  }

  /** Delivers to this replica's sockets: the next seq of `topic`, into its ring, to each subscriber. */
  deliver(topic: string, data: unknown): void {
    const t = this.topic(topic);
    const seq = ++t.seq;
    const f = frame({ type: "event", topic, seq, data });
    t.ring.push({ first: seq, last: seq, frame: f });
    for (const [client, sub] of t.subs) this.sendTo(t, client, sub, f, seq, seq);
  }

  // ---- clients ----

  /** A new socket: it is told the feed status at once. */
  attach(client: LiveClient): void {
    if (this.clients.has(client)) return;
    this.clients.set(client, new Set());
    client.send(this.statusFrame());
  }

  /** A closed socket: it leaves every topic. */
  detach(client: LiveClient): void {
    const held = this.clients.get(client);
    if (!held) return;
    for (const name of held) this.topics.get(name)?.subs.delete(client);
    this.clients.delete(client);
    this.forgetIdleRuns();
  }

  /** Topics `client` holds. */
  held(client: LiveClient): number {
    return this.clients.get(client)?.size ?? 0;
  }

  /** True when `client` holds `topic`. */
  holds(client: LiveClient, topic: string): boolean {
    return this.clients.get(client)?.has(topic) ?? false;
  }

  /** Sockets holding `topic` on this replica. */
  subscribers(topic: string): number {
    return this.topics.get(topic)?.subs.size ?? 0;
  }

  /** Sockets attached. */
  get size(): number {
    return this.clients.size;
  }

  /**
   * Subscribes (authorization already checked): `subscribed`, then what a resume cursor calls for (replay, or a
   * gap), then live events. A subscription the client already holds starts over from the new cursor.
   */
  subscribe(client: LiveClient, msg: WsSubscribe): void {
    const held = this.clients.get(client);
    if (!held) return;
    const t = this.topic(msg.topic);
    const first = t.subs.size === 0;
    const sub: Subscription = {};
    t.subs.set(client, sub);
    held.add(t.name);
    client.send(frame({ type: "subscribed", topic: t.name, seq: t.seq, replica: this.replicaId }));
    const since = msg.since;
    if (since !== undefined) {
      if (msg.replica !== this.replicaId || since > t.seq) {
        // another replica's numbering (or a cursor this replica never issued): nothing to replay from
        this.gap(client, t.name, since + 1, Math.max(t.seq, since + 1), "other-replica");
      } else if (since < t.seq) {
        const oldest = t.ring.oldest() ?? t.seq + 1;
        if (since + 1 < oldest) this.gap(client, t.name, since + 1, oldest - 1, "beyond-ring");
        for (const e of t.ring.after(since))
          this.sendTo(t, client, sub, e.frame, e.first, e.last, this.replayBytes);
      }
    }
    if (first) for (const fn of this.activeListeners) fn(t.name);
  }

  /** Leaves `topic` (nothing when not held). */
  unsubscribe(client: LiveClient, topic: string): void {
    const held = this.clients.get(client);
    if (!held?.delete(topic)) return;
    this.topics.get(topic)?.subs.delete(client);
    this.forgetIdleRuns();
  }

  /**
   * Tells each lagging client that drained below half its bound of the events it missed (slow-consumer gap).
   * Also done before the next frame to such a client; call this periodically for topics that went quiet.
   */
  sweep(): void {
    for (const t of this.topics.values())
      for (const [client, sub] of t.subs) if (sub.lagFrom !== undefined) this.recover(t, client, sub);
  }

  /** The status message now (what a new socket is sent). */
  statusMessage(): { type: "status"; fed: boolean; since: string | null } {
    return { type: "status", ...this.status };
  }

  private statusFrame(): Buffer {
    return frame(this.statusMessage());
  }

  private gap(client: LiveClient, topic: string, from: number, to: number, reason: GapReason): void {
    client.send(frame({ type: "gap", topic, from, to, reason }));
  }

  /** Sends `f` (covering first..last) unless the client is over its bound; then it lags and learns of it later. */
  private sendTo(
    t: TopicState,
    client: LiveClient,
    sub: Subscription,
    f: Buffer,
    first: number,
    last: number,
    bound = this.slowBytes,
  ): void {
    if (sub.lagFrom !== undefined) this.recover(t, client, sub);
    if (sub.lagFrom !== undefined) {
      sub.lagTo = last;
      return;
    }
    if (client.bufferedAmount > bound) {
      sub.lagFrom = first;
      sub.lagTo = last;
      return;
    }
    client.send(f);
  }

  private recover(t: TopicState, client: LiveClient, sub: Subscription): void {
    if (sub.lagFrom === undefined || client.bufferedAmount > this.slowBytes / 2) return;
    this.gap(client, t.name, sub.lagFrom, sub.lagTo ?? sub.lagFrom, "slow-consumer");
    sub.lagFrom = undefined;
    sub.lagTo = undefined;
  }

  private topic(name: string): TopicState {
    let t = this.topics.get(name);
    if (!t) {
      t = { name, seq: 0, ring: new ReplayRing(this.ringSize), subs: new Map() };
      this.topics.set(name, t);
      this.forgetIdleRuns();
    }
    return t;
  }

  /** Keeps at most WS_IDLE_RUN_TOPICS run topics without subscribers (Map order: oldest created first). */
  private forgetIdleRuns(): void {
    let idle = 0;
    for (const t of this.topics.values()) if (t.name.startsWith("run:") && t.subs.size === 0) idle++;
    if (idle <= WS_IDLE_RUN_TOPICS) return;
    for (const [name, t] of this.topics) {
      if (idle <= WS_IDLE_RUN_TOPICS) break;
      if (name.startsWith("run:") && t.subs.size === 0) {
        this.topics.delete(name);
        idle--;
      }
    }
  }
}
