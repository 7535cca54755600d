import type { EventMessage } from "@svc/protocol";
import { type EventSink, EventSubscriber } from "./subscriber.ts";
import { type DomainEvent, EVENT_TOPICS, type EventPublisher, TOPIC_OF } from "./topics.ts";

export interface EventBusOptions {
  /** `controller.events.enabled`; when false publish() is a no-op */
  enabled: boolean;
  /** events kept per topic for replay; default 1024 */
  ringSize?: number;
  /** events queued per subscriber beyond the sink's own buffer before the oldest are dropped; default 1024 */
  maxQueued?: number;
  /** clock, ms since epoch */
  now?: () => number;
}

/**
 * The controller's domain-event bus (spec §6.1). publish() stamps each event with its topic's next sequence
 * number (starting at 1) and a timestamp, keeps it in that topic's bounded ring, and hands it to every
 * subscriber. subscribe() with an `after` map (topic -> last seq seen) first replays the ring's later events of
 * those topics; when the cursor has fallen out of the ring, the first replayed event carries `missed` = the
 * number of events lost. Topics absent from `after` (and cursors ahead of this process's sequence) start from
 * now. Slow subscribers drop their own oldest events (see EventSubscriber) and never block the others.
 */
export class EventBus implements EventPublisher {
  readonly enabled: boolean;
  readonly #ringSize: number;
  readonly #maxQueued: number;
  readonly #now: () => number;
  readonly #rings = new Map<string, EventMessage[]>();
  readonly #seq = new Map<string, number>();
  readonly #subscribers = new Set<EventSubscriber>();
  /** sequence numbers of this bus's current run start after this */
  #base = 0;

  constructor(opts: EventBusOptions) {
    this.enabled = opts.enabled;
    this.#ringSize = Math.max(1, opts.ringSize ?? 1024);
    this.#maxQueued = opts.maxQueued ?? 1024;
    this.#now = opts.now ?? Date.now;
  }

  publish(event: DomainEvent): void {
    if (!this.enabled) return;
    const topic = TOPIC_OF[event.type];
    const seq = this.lastSeq(topic) + 1;
    this.#seq.set(topic, seq);
    const message: EventMessage = {
      topic,
      seq,
      type: event.type,
      timestamp_unix_ns: this.#now() * 1_000_000,
      severity: event.severity,
      scope: event.scope,
      payload_json: JSON.stringify(event.payload),
      missed: 0,
    };
    let ring = this.#rings.get(topic);
    if (ring === undefined) {
      ring = [];
      this.#rings.set(topic, ring);
    }
    ring.push(message);
    if (ring.length > this.#ringSize) ring.shift();
    for (const s of this.#subscribers) s.push(message);
  }

  /** Last sequence number issued on a topic (the run's base when none yet). */
  lastSeq(topic: string): number {
    return this.#seq.get(topic) ?? this.#base;
  }

  /**
   * Starts a new run of sequence numbers after `base` on every topic and forgets the rings: this replica became
   * the leader, and the base (its time, in µs) lies beyond any sequence number an earlier leader issued, so a
   * cursor of an earlier leader is recognisable as one (see subscribe).
   */
  restart(base: number): void {
    this.#base = base;
    this.#seq.clear();
    this.#rings.clear();
  }

  /**
   * Adds a subscriber, replaying per `after`; returns the unsubscribe function. A cursor this run did not issue
   * (at or below its base, or ahead of its last event: another leader's, or this process's before a restart) means
   * events may have been lost in between, how many is unknown: the whole ring is replayed and the first event
   * delivered on that topic carries `missed` + 1 (spec §6.2: a gap is reported as possible loss).
   */
  subscribe(sink: EventSink, after: Record<string, number> = {}): () => void {
    const sub = new EventSubscriber(sink, this.#maxQueued);
    for (const topic of EVENT_TOPICS) {
      const cursor = after[topic];
      if (cursor === undefined) continue;
      if ((this.#base > 0 && cursor <= this.#base) || cursor > this.lastSeq(topic)) {
        sub.markMissed(topic, 1);
        for (const e of this.#rings.get(topic) ?? []) sub.push(e);
        continue;
      }
      for (const e of this.#replay(topic, cursor)) sub.push(e);
    }
    this.#subscribers.add(sub);
    return () => {
      sub.close();
      this.#subscribers.delete(sub);
    };
  }

  /** Ends every subscription (server shutdown). */
  close(): void {
    for (const s of this.#subscribers) s.end();
    this.#subscribers.clear();
  }

  /** Number of open subscriptions (metric `controller_event_subscribers`). */
  get subscribers(): number {
    return this.#subscribers.size;
  }

  #replay(topic: string, cursor: number): EventMessage[] {
    const last = this.lastSeq(topic);
    if (cursor >= last) return [];
    const later = (this.#rings.get(topic) ?? []).filter((e) => e.seq > cursor);
    const first = later[0];
    if (first === undefined) return [];
    const lost = first.seq - cursor - 1;
    if (lost > 0) later[0] = { ...first, missed: first.missed + lost };
    return later;
  }
}
