/**
 * EventIngester: this console replica's subscription to the controller's event stream (EventService.Subscribe,
 * spec §6.1), kept open by the agents' ReconnectingStream (backoff 1 s doubling to 12 s, jitter taking off up to
 * 25 %, so a replica is fed again within 15 s of the stream returning, spec §6.2; after a
 * standby's UNAVAILABLE `not the leader` the channel is re-dialled, so the next attempt reaches whichever replica
 * the address leads to now, as agents follow the leader; a restarted controller is reconnected to as soon as it
 * answers). Each (re)connect resumes with `after` = the last sequence number received per topic.
 *
 * Every event is bounded (type 64, severity 32, scope 512 characters, payload 64 KiB: a larger one is kept as
 * `{ truncated: true, bytes }`), given its summary line, stored (when the console has a database) and handed to
 * the FeedSink in arrival order. A stream connecting (`fed` true) or dropping (`fed` false) is told to the sink;
 * so are events the controller reports missed.
 *
 * Topology baselines (never listed as events): the controller's topology snapshot is stored each time the stream
 * connects and every `baselineEveryMs` (1 h) while it stays connected; a baseline that cannot be read is tried
 * again after `baselineRetryMs` (1 min) while connected.
 */

import type { FeedEvent } from "@svc/contract";
import {
  CONTROLLER_CHANNEL_OPTIONS,
  ControllerChannel,
  ReconnectingStream,
  type StreamState,
} from "@svc/controller-client";
import {
  createEventServiceClient,
  type EventMessage,
  type EventServiceClient,
  grpc,
  type TopologySnapshot,
} from "@svc/protocol";
import type { FeedSink } from "../live/feed-sink.ts";
import { type ConsoleLogger, silent } from "../log.ts";
import type { EventStore, NewEvent } from "./event-store.ts";
import { canonicalScope } from "./scope.ts";
import { storable } from "./storable.ts";
import { summarize } from "./summary.ts";

/** A clock in epoch ms that can run callbacks later (Node timers in production, virtual time in tests). */
export interface Scheduler {
  now(): number;
  schedule(at: number, fn: (now: number) => void): { cancel(): void };
}

/** Node timers on Date.now (unref'd: they never hold the process open). */
export const wallClock: Scheduler = {
  now: () => Date.now(),
  schedule(at, fn) {
    const t = setTimeout(() => fn(Date.now()), Math.max(0, at - Date.now()));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

export const BASELINE_EVERY_MS = 3_600_000;
export const BASELINE_RETRY_MS = 60_000;
/** Received events waiting to be stored at most, and their payload bytes; beyond either new ones are dropped (missed). */
export const MAX_PENDING = 10_000;
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;
export const PAYLOAD_MAX_BYTES = 64 * 1024;
/** Topics whose resume cursor is kept at most (the controller has four). */
const MAX_TOPICS = 64;

/** Options of EventIngester. */
export interface EventIngesterOptions {
  /** a client of the controller's EventService; called again after `not the leader` (see eventClient) */
  dial: () => EventServiceClient;
  /** undefined: no database, events go to the sink only */
  store?: EventStore;
  sink: FeedSink;
  /** the controller's topology snapshot, for baselines (undefined: no baselines) */
  topology?: () => Promise<TopologySnapshot>;
  clock?: Scheduler;
  baselineEveryMs?: number;
  baselineRetryMs?: number;
  /** reconnect backoff; default INGEST_BACKOFF */
  backoff?: { initialMs: number; maxMs: number; jitter: number };
  random?: () => number;
  logger?: ConsoleLogger;
}

/**
 * Reconnect backoff of the event stream: the longest wait is 12 s (jitter only shortens it), which leaves 3 s for the
 * attempt itself, so an unfed replica (Matrix and Topology polling) is fed again within 15 s of the stream returning
 * (spec §6.2).
 */
export const INGEST_BACKOFF = { initialMs: 1000, maxMs: 12_000, jitter: 0.25 } as const;

/** A dialler of the controller's EventService at `address` with the agents' channel options (plain text). */
export function eventClient(address: string): () => EventServiceClient {
  return () =>
    createEventServiceClient(address, grpc.credentials.createInsecure(), CONTROLLER_CHANNEL_OPTIONS);
}

function cut(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

function payloadOf(text: string): Record<string, unknown> {
  const bytes = Buffer.byteLength(text);
  if (bytes > PAYLOAD_MAX_BYTES) return { truncated: true, bytes };
  if (text === "") return {};
  try {
    const v = JSON.parse(storable(text), (_k, val: unknown) =>
      typeof val === "string" ? storable(val) : val,
    );
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    return { value: v };
  } catch {
    return { unparsed: true, bytes };
  }
}

/** The stored form of one wire event received at `receivedAt` (epoch ms). */
export function toNewEvent(e: EventMessage, receivedAt: number): NewEvent {
  const ns = Number(e.timestamp_unix_ns);
  const valid = Number.isFinite(ns) && ns > 0;
  const atNs = valid ? BigInt(Math.round(ns)) : BigInt(receivedAt) * 1_000_000n;
  const type = storable(cut(e.type, 64));
  const scope = storable(canonicalScope(e.scope));
  const payload = payloadOf(e.payload_json);
  return {
    topic: storable(cut(e.topic, 64)),
    seq: Number(e.seq),
    atNs,
    at: valid ? Math.floor(ns / 1_000_000) : receivedAt,
    type,
    severity: storable(cut(e.severity, 32)),
    scope,
    summary: storable(summarize(type, scope, payload)),
    payload,
    receivedAt,
  };
}

/** What the ingester is doing (for tests and /readyz-style checks). */
export interface IngesterStatus {
  connected: boolean;
  /** events received since start */
  received: number;
  /** events the database refused (handed to the sink all the same) */
  storeFailures: number;
  /** baselines stored since start */
  baselines: number;
  /** last sequence number received per topic (the next resume's `after`) */
  after: Record<string, number>;
}

/** The controller event-stream subscriber of one console replica. */
export class EventIngester {
  readonly #o: EventIngesterOptions;
  readonly #clock: Scheduler;
  readonly #log: ConsoleLogger;
  readonly #channel: ControllerChannel<EventServiceClient>;
  readonly #stream: ReconnectingStream<EventMessage>;
  readonly #after = new Map<string, number>();
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  #pendingBytes = 0;
  #connected = false;
  #received = 0;
  #storeFailures = 0;
  #baselines = 0;
  #baselineTimer: { cancel(): void } | undefined;
  #stopped = false;

  constructor(opts: EventIngesterOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? wallClock;
    this.#log = opts.logger ?? silent;
    this.#channel = new ControllerChannel(opts.dial);
    this.#stream = new ReconnectingStream<EventMessage>({
      name: "controller event stream",
      open: () => this.#channel.get().Subscribe({ after: Object.fromEntries(this.#after) }),
      onMessage: (e) => this.#receive(e),
      onConnected: () => this.#onConnected(),
      onBreak: (b) => this.#onBreak(b.reason),
      channel: this.#channel,
      clock: this.#clock,
      backoff: opts.backoff ?? INGEST_BACKOFF,
      ...(opts.random ? { random: opts.random } : {}),
      logger: this.#log,
    });
  }

  /** Opens the subscription (once); reconnects on its own until stop(). */
  start(): void {
    this.#stream.start();
  }

  /** Ends the subscription and the baseline timer, then waits until every received event is stored. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stream.stop();
    this.#baselineTimer?.cancel();
    this.#baselineTimer = undefined;
    this.#channel.close();
    if (this.#connected) {
      this.#connected = false;
      this.#o.sink.fed(false, this.#clock.now());
    }
    await this.#queue;
  }

  /** Resolves once every event received so far has been stored and handed on. */
  drained(): Promise<void> {
    return this.#queue;
  }

  /** What the reconnecting stream is doing now (tests wait on "waiting" before moving virtual time). */
  streamState(): StreamState {
    return this.#stream.state();
  }

  status(): IngesterStatus {
    return {
      connected: this.#connected,
      received: this.#received,
      storeFailures: this.#storeFailures,
      baselines: this.#baselines,
      after: Object.fromEntries(this.#after),
    };
  }

  #onConnected(): void {
    if (this.#stopped) return;
    this.#connected = true;
    this.#log.info({ after: Object.fromEntries(this.#after) }, "controller event stream connected");
    this.#o.sink.fed(true, this.#clock.now());
    this.#baselineTimer?.cancel();
    this.#baselineTimer = undefined;
    void this.#takeBaseline();
  }

  #onBreak(reason: string): void {
    this.#baselineTimer?.cancel();
    this.#baselineTimer = undefined;
    if (!this.#connected) return;
    this.#connected = false;
    this.#log.warn({ reason }, "controller event stream lost");
    this.#o.sink.fed(false, this.#clock.now());
  }

  #scheduleBaseline(delayMs: number): void {
    this.#baselineTimer?.cancel();
    if (!this.#o.store || !this.#o.topology) return;
    this.#baselineTimer = this.#clock.schedule(this.#clock.now() + delayMs, () => {
      this.#baselineTimer = undefined;
      void this.#takeBaseline();
    });
  }

  async #takeBaseline(): Promise<void> {
    const { store, topology } = this.#o;
    if (!store || !topology || !this.#connected) return;
    let next = this.#o.baselineEveryMs ?? BASELINE_EVERY_MS;
    try {
      const snap = await topology();
      const stamped = Date.parse(snap.timestamp);
      const at = Number.isFinite(stamped) ? stamped : this.#clock.now();
      // the probe plan is left out: it can be large, and past links are not drawn from it
      await store.insertBaseline(at, {
        nodes: snap.nodes,
        agents: snap.agents,
        timestamp: new Date(at).toISOString(),
      });
      this.#baselines++;
    } catch (e) {
      next = this.#o.baselineRetryMs ?? BASELINE_RETRY_MS;
      this.#log.warn({ err: String(e), retryMs: next }, "topology baseline not stored");
    }
    if (this.#connected && !this.#stopped && this.#baselineTimer === undefined) this.#scheduleBaseline(next);
  }

  #receive(e: EventMessage): void {
    this.#received++;
    const topic = cut(e.topic, 64);
    if (this.#after.has(topic) || this.#after.size < MAX_TOPICS) this.#after.set(topic, Number(e.seq));
    const missed = Number(e.missed);
    if (missed > 0) this.#o.sink.missed(missed);
    const bytes = e.payload_json.length;
    if (this.#pending >= MAX_PENDING || this.#pendingBytes + bytes > MAX_PENDING_BYTES) {
      this.#log.warn({ topic, seq: Number(e.seq) }, "event store backlog full: event dropped");
      this.#o.sink.missed(1);
      return;
    }
    const row = toNewEvent(e, this.#clock.now());
    this.#pending++;
    this.#pendingBytes += bytes;
    this.#queue = this.#queue.then(async () => {
      try {
        this.#o.sink.event(await this.#stored(row));
      } catch (err) {
        this.#log.error({ err: String(err) }, "event not handed on");
      } finally {
        this.#pending--;
        this.#pendingBytes -= bytes;
      }
    });
  }

  async #stored(row: NewEvent): Promise<FeedEvent> {
    const { payload, receivedAt: _r, atNs, topic, seq, ...rest } = row;
    const unstored: FeedEvent = {
      id: `${topic}-${seq}-${atNs}`,
      at: new Date(row.at).toISOString(),
      type: rest.type,
      severity: rest.severity,
      scope: rest.scope,
      summary: rest.summary,
      payload,
    };
    if (!this.#o.store) return unstored;
    try {
      return await this.#o.store.insert(row);
    } catch (err) {
      this.#storeFailures++;
      this.#log.error({ err: String(err), topic, seq }, "event not stored");
      return unstored;
    }
  }
}
