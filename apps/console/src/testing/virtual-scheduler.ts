/**
 * Test helper: a Scheduler (events/ingester.ts) in virtual time, epoch ms. Nothing runs until advance(); callbacks
 * then run in planned-time order, each seeing now() at its planned time.
 */
import type { Scheduler } from "../events/ingester.ts";

interface Pending {
  at: number;
  seq: number;
  fn: (now: number) => void;
  cancelled: boolean;
}

export class VirtualScheduler implements Scheduler {
  #now: number;
  #seq = 0;
  #pending: Pending[] = [];

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(at: number, fn: (now: number) => void): { cancel(): void } {
    const p: Pending = { at: Math.max(at, this.#now), seq: this.#seq++, fn, cancelled: false };
    this.#pending.push(p);
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  /** Callbacks waiting to run. */
  pending(): number {
    return this.#pending.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms`, running what falls due on the way (also what those callbacks schedule). */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      this.#pending = this.#pending.filter((p) => !p.cancelled);
      let next: Pending | undefined;
      for (const p of this.#pending)
        if (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq)) next = p;
      if (next === undefined || next.at > until) break;
      this.#pending = this.#pending.filter((p) => p !== next);
      this.#now = next.at;
      next.fn(this.#now);
    }
    this.#now = until;
  }
}

/**
 * Polls `cond` until true (rejecting after `timeoutMs` of real time), moving `clock` forward by `stepMs` of virtual
 * time between polls: waits of the code under test (backoff, retries) pass without real-time windows.
 */
export async function waitAdvancing(
  clock: VirtualScheduler,
  cond: () => boolean | Promise<boolean>,
  what: string,
  opts: { stepMs?: number; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    clock.advance(opts.stepMs ?? 1000);
    await new Promise((r) => setTimeout(r, 20));
  }
}
