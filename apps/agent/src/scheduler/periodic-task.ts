import { type ClockEntry, type ProbeClock, timerClock } from "../clock/probe-clock.ts";

export interface PeriodicTaskOptions {
  intervalMs: number;
  /** first planned start, ms after start() */
  phaseMs: number;
  /** called at each planned start with its lateness (ms); the callee decides whether to run or skip */
  tick(latenessMs: number): void;
  /** the clock the starts are scheduled on; default plain timers */
  clock?: ProbeClock;
  /** how much earlier than planned a start may run, so it can share a wake-up (CoalescingClock); default 0 */
  earlyMs?: number;
}

/**
 * Fires `tick` on a fixed grid (start + phase + k x interval) without drift: each start is scheduled for the
 * next planned time, not "interval after the last run". Slots missed entirely (event loop blocked longer than
 * an interval) are skipped rather than fired in a burst. A start run early (earlyMs) has lateness 0 and does
 * not move the grid.
 */
export class PeriodicTask {
  #entry: ClockEntry | undefined;
  #planned = 0;
  readonly #clock: ProbeClock;
  constructor(readonly options: PeriodicTaskOptions) {
    this.#clock = options.clock ?? timerClock;
  }

  start(): void {
    this.stop();
    this.#planned = this.#clock.now() + this.options.phaseMs;
    this.#arm();
  }

  stop(): void {
    this.#entry?.cancel();
    this.#entry = undefined;
  }

  #arm(): void {
    this.#entry = this.#clock.schedule(this.#planned, (now) => this.#fire(now), {
      early: this.options.earlyMs ?? 0,
    });
  }

  #fire(now: number): void {
    const planned = this.#planned;
    this.#planned += this.options.intervalMs;
    while (this.#planned <= now) this.#planned += this.options.intervalMs;
    this.#arm();
    this.options.tick(Math.max(0, now - planned));
  }
}
