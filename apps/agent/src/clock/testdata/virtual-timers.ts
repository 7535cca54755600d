import type { ClockTimers } from "../probe-clock.ts";

/**
 * Test fixture: the time source and timers of a CoalescingClock in virtual time. A timer fires at exactly its
 * time when the test advances past it (timers set by a firing one fire in the same advance when due).
 */
export class VirtualTimers implements ClockTimers {
  #now: number;
  #seq = 0;
  #due = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 1000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  set(fn: () => void, ms: number): unknown {
    const id = ++this.#seq;
    this.#due.set(id, { at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clear(handle: unknown): void {
    this.#due.delete(handle as number);
  }

  /** Timers armed and not fired or cleared. */
  get armed(): number {
    return this.#due.size;
  }

  /** Moves time forward by `ms`, firing every timer due on the way in time order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.#due) if (!next || e[1].at < next[1].at) next = e;
      if (!next || next[1].at > end) break;
      this.#due.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = end;
  }
}
