import { performance } from "node:perf_hooks";
import { type ClockEntry, timerClock as plainTimerClock } from "@svc/controller-client";
import { MinHeap } from "./min-heap.ts";

/** How far from its planned time a callback may run, ms: `early` before it, `late` after it. */
export interface Slack {
  early?: number;
  late?: number;
}

/** A scheduled callback; cancel() before it ran means it never runs. */
export type { ClockEntry };

/**
 * Runs callbacks at (or near) planned times of the performance.now() clock. The probers and the probe
 * scheduler take one, so their timers can share wake-ups (CoalescingClock) or not (timerClock).
 */
export interface ProbeClock {
  now(): number;
  /** Runs fn once, at a time within [at - early, at + late]; fn gets the time it runs at. */
  schedule(at: number, fn: (now: number) => void, slack?: Slack): ClockEntry;
  /**
   * Clocks that run callbacks in batches: runs fn at the start of every batch, before its callbacks (a socket
   * read there instead of on its own wake-up). Returns the function that removes it.
   */
  onBatch?(fn: () => void): () => void;
}

/** A ProbeClock on plain Node timers: every callback runs on its own timer at its planned time. */
export const timerClock: ProbeClock = plainTimerClock;

const TIMER_RESOLUTION_MS = 1;

/**
 * The probers' shared beat, ms: udp sends fall on multiples of it, and probe starts (up to 100 ms early) and
 * reply deadlines (up to 100 ms late) can always reach one of its ticks, so while probes are in flight the agent
 * wakes about 1000 / BATCH_GRID_MS times a second however many peers it probes (docs/decisions.md).
 */
export const BATCH_GRID_MS = 100;

/** The first tick of the batch grid at or after `t` (performance.now() ms). */
export function gridCeil(t: number): number {
  return Math.ceil(t / BATCH_GRID_MS) * BATCH_GRID_MS;
}

/** A callback on a CoalescingClock. A class, so an entry is one object (a cancel closure per entry was two more). */
class Entry implements ClockEntry {
  done = false;
  constructor(
    readonly earliest: number,
    readonly latest: number,
    readonly fn: (now: number) => void,
    readonly onCancel: () => void,
  ) {}

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.onCancel();
  }
}

/**
 * A ProbeClock that runs callbacks in batches to save process wake-ups. One Node timer is armed for the
 * earliest `latest` time among pending callbacks; when it fires, every pending callback whose `earliest` time
 * has come runs in the same turn of the event loop. A probe start that may run up to 100 ms early and a
 * deadline that may run up to 100 ms late thus share a wake-up with whatever else is due around then (the
 * probers use BATCH_GRID_MS as that slack).
 * Why: on small (virtualised) machines each wake-up of an idle Node process costs 100-200 µs of CPU before any
 * work is done (measured in docs/decisions.md), which at hundreds of peers is most of the agent's CPU.
 * Callbacks never run later than planned + late (give or take the event loop's own delay), nor more than 1 ms
 * (Node's timer resolution) before planned - early; the time a callback is given is never before planned - early.
 * Batch hooks (onBatch) run at the start of every batch: the probers read their sockets there, so a reply costs
 * no wake-up of its own. A callback that throws does not stop the batch; its error
 * goes to onError (default: rethrown on its own, as an uncaught exception, like a timer's).
 */
/** The time source and the one timer a CoalescingClock uses (Node's by default; a virtual clock in tests). */
export interface ClockTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const nodeTimers: ClockTimers = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class CoalescingClock implements ProbeClock {
  readonly #onError: (err: unknown) => void;
  readonly #t: ClockTimers;
  readonly #byEarliest = new MinHeap<Entry>((e) => e.earliest);
  readonly #byLatest = new MinHeap<Entry>((e) => e.latest);
  #timer: unknown;
  #armedFor = Number.POSITIVE_INFINITY;
  #pending = 0;
  #firing = false;
  readonly #batchHooks = new Set<() => void>();
  /** Called by an entry cancelled before it ran. */
  readonly #cancelled = (): void => {
    this.#pending--;
    if (this.#pending === 0) this.#disarm();
  };

  constructor(options: { onError?: (err: unknown) => void; timers?: ClockTimers } = {}) {
    this.#t = options.timers ?? nodeTimers;
    this.#onError =
      options.onError ??
      ((err) =>
        queueMicrotask(() => {
          throw err;
        }));
  }

  now(): number {
    return this.#t.now();
  }

  /** Callbacks scheduled and not yet run or cancelled. */
  get pending(): number {
    return this.#pending;
  }

  schedule(at: number, fn: (now: number) => void, slack: Slack = {}): ClockEntry {
    const entry = new Entry(
      at - Math.max(0, slack.early ?? 0),
      at + Math.max(0, slack.late ?? 0),
      fn,
      this.#cancelled,
    );
    this.#pending++;
    this.#byEarliest.push(entry);
    this.#byLatest.push(entry);
    if (!this.#firing && entry.latest < this.#armedFor) this.#arm(entry.latest);
    return entry;
  }

  onBatch(fn: () => void): () => void {
    // a wrapper per call, so the same function added twice is removed once per remover
    const hook = () => fn();
    this.#batchHooks.add(hook);
    return () => {
      this.#batchHooks.delete(hook);
    };
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) this.#t.clear(this.#timer);
    this.#armedFor = at;
    this.#timer = this.#t.set(() => this.#fire(), Math.max(0, at - this.#t.now()));
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#t.clear(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    this.#byEarliest.clear();
    this.#byLatest.clear();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.#t.now();
    // Node fires a timer when its millisecond loop clock says so, which can be a fraction of a ms before `at`
    const horizon = now + TIMER_RESOLUTION_MS;
    // Node's timers count from the event loop's cached time, which lags when the turn that armed the timer ran
    // long: then the timer fires before anything is due, and only the timer is re-armed.
    let head = this.#byEarliest.peek();
    while (head?.done) {
      this.#byEarliest.pop();
      head = this.#byEarliest.peek();
    }
    if (!head || head.earliest > horizon) {
      this.#rearm();
      return;
    }
    this.#firing = true;
    for (const hook of this.#batchHooks) {
      try {
        hook();
      } catch (err) {
        this.#onError(err);
      }
    }
    // callbacks scheduled by the ones that run (at or before now) run in this batch too
    for (
      let e = this.#byEarliest.peek();
      e && (e.done || e.earliest <= horizon);
      e = this.#byEarliest.peek()
    ) {
      this.#byEarliest.pop();
      if (e.done) continue;
      e.done = true;
      this.#pending--;
      try {
        // never earlier than its window opens, as far as the callback can tell: one that re-schedules itself
        // until `now` reaches its time would otherwise loop within this batch
        e.fn(Math.max(now, e.earliest));
      } catch (err) {
        this.#onError(err);
      }
    }
    this.#firing = false;
    this.#rearm();
  }

  /** Arms the timer for the earliest latest time among pending callbacks. */
  #rearm(): void {
    let next = this.#byLatest.peek();
    while (next?.done) {
      this.#byLatest.pop();
      next = this.#byLatest.peek();
    }
    if (next) this.#arm(next.latest);
  }
}
