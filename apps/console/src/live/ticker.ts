/** Periodic work behind an injectable seam, so tests drive it in virtual time. */

/** Calls `fn` every `ms` until the returned stop is called. */
export type Ticker = (ms: number, fn: () => void) => () => void;

/** setInterval, not keeping the process alive. */
export const realTicker: Ticker = (ms, fn) => {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** A ticker tests advance by hand: tick(ms) runs each timer as often as `ms` of virtual time calls for. */
export class ManualTicker {
  private readonly timers = new Set<{ every: number; due: number; fn: () => void }>();
  private t = 0;

  readonly every: Ticker = (ms, fn) => {
    const timer = { every: ms, due: this.t + ms, fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  };

  /** Advances virtual time by `ms`, running due timers in time order. */
  tick(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: { every: number; due: number; fn: () => void } | undefined;
      for (const timer of this.timers) if (timer.due <= end && (!next || timer.due < next.due)) next = timer;
      if (!next) break;
      this.t = next.due;
      next.due += next.every;
      next.fn();
    }
    this.t = end;
  }

  /** Timers running. */
  get size(): number {
    return this.timers.size;
  }
}
