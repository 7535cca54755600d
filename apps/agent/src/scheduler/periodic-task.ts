import { performance } from "node:perf_hooks";

export interface PeriodicTaskOptions {
  intervalMs: number;
  /** first planned start, ms after start() */
  phaseMs: number;
  /** called at each planned start with its lateness (ms); the callee decides whether to run or skip */
  tick(latenessMs: number): void;
}

/**
 * Fires `tick` on a fixed grid (start + phase + k x interval) without drift: each timer is armed for the next
 * planned start, not "interval after the last run". Slots missed entirely (event loop blocked longer than an
 * interval) are skipped rather than fired in a burst.
 */
export class PeriodicTask {
  #timer: NodeJS.Timeout | undefined;
  #planned = 0;
  constructor(readonly options: PeriodicTaskOptions) {}

  start(): void {
    this.stop();
    this.#planned = performance.now() + this.options.phaseMs;
    this.#arm();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    const delay = Math.max(0, this.#planned - performance.now());
    this.#timer = setTimeout(() => this.#fire(), delay);
  }

  #fire(): void {
    const now = performance.now();
    const planned = this.#planned;
    this.#planned += this.options.intervalMs;
    while (this.#planned <= now) this.#planned += this.options.intervalMs;
    this.#arm();
    this.options.tick(Math.max(0, now - planned));
  }
}
