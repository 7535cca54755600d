import type { Clock, ClockEntry } from "./clock.ts";

interface Pending {
  at: number;
  seq: number;
  fn: (now: number) => void;
  cancelled: boolean;
}

/**
 * Test fixture: a Clock (and so an agent's ProbeClock) in virtual time. Nothing runs until the test calls
 * advance(); callbacks then run in planned-time order (ties in scheduling order), each seeing now() at its planned
 * time. Slack is ignored.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #pending: Pending[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(at: number, fn: (now: number) => void): ClockEntry {
    const p: Pending = { at: Math.max(at, this.#now), seq: this.#seq++, fn, cancelled: false };
    this.#pending.push(p);
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  /** Callbacks scheduled and not yet run or cancelled. */
  pendingCount(): number {
    return this.#pending.filter((p) => !p.cancelled).length;
  }

  /** Delay from now to the earliest pending callback; undefined when none. */
  nextDelay(): number | undefined {
    const next = this.#next();
    return next === undefined ? undefined : next.at - this.#now;
  }

  /** Moves time forward by `ms`, running every callback that falls due on the way (also ones they schedule). */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const next = this.#next();
      if (next === undefined || next.at > until) break;
      this.#pending = this.#pending.filter((p) => p !== next);
      this.#now = next.at;
      next.fn(this.#now);
    }
    this.#now = until;
  }

  #next(): Pending | undefined {
    this.#pending = this.#pending.filter((p) => !p.cancelled);
    let best: Pending | undefined;
    for (const p of this.#pending)
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    return best;
  }
}
