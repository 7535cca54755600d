import type { EventMessage } from "@svc/protocol";

/** Where a subscriber's events are written (a gRPC server stream in production). */
export interface EventSink {
  /** Writes one event; false when the sink's buffer is full (the event is still accepted): wait for drain. */
  write(event: EventMessage): boolean;
  /** Calls `cb` once the sink can take more events. */
  onceDrain(cb: () => void): void;
  /** Ends the stream (server shutdown). */
  end(): void;
}

/**
 * One subscriber's outbound queue. Events are written to the sink until it reports a full buffer; further events
 * wait in a queue of at most `maxQueued`. When the queue overflows, the oldest queued event is dropped and
 * counted against its topic; the next event of that topic delivered carries the count in `missed`. A slow
 * subscriber therefore never blocks the bus or other subscribers, and always learns how much it lost.
 */
export class EventSubscriber {
  readonly #sink: EventSink;
  readonly #maxQueued: number;
  readonly #queue: EventMessage[] = [];
  readonly #missed = new Map<string, number>();
  #blocked = false;
  #closed = false;

  constructor(sink: EventSink, maxQueued: number) {
    this.#sink = sink;
    this.#maxQueued = Math.max(1, maxQueued);
  }

  /** Queues an event (with `missed` already set for replay gaps) and writes what the sink accepts. */
  push(event: EventMessage): void {
    if (this.#closed) return;
    this.#queue.push(event);
    while (this.#queue.length > this.#maxQueued) {
      const dropped = this.#queue.shift();
      if (dropped === undefined) break;
      this.#addMissed(dropped.topic, 1 + dropped.missed);
    }
    this.#flush();
  }

  /** The next event of `topic` delivered carries `n` more in `missed` (events lost before it). */
  markMissed(topic: string, n: number): void {
    this.#addMissed(topic, n);
  }

  /** Events waiting for the sink to drain. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Stops writing; queued events are discarded. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
  }

  /** Stops writing and ends the sink. */
  end(): void {
    this.close();
    this.#sink.end();
  }

  #addMissed(topic: string, n: number): void {
    this.#missed.set(topic, (this.#missed.get(topic) ?? 0) + n);
  }

  #flush(): void {
    while (!this.#blocked && !this.#closed) {
      const next = this.#queue.shift();
      if (next === undefined) return;
      const lost = this.#missed.get(next.topic) ?? 0;
      this.#missed.delete(next.topic);
      const event = lost > 0 ? { ...next, missed: next.missed + lost } : next;
      if (!this.#sink.write(event)) {
        this.#blocked = true;
        this.#sink.onceDrain(() => {
          this.#blocked = false;
          this.#flush();
        });
      }
    }
  }
}
