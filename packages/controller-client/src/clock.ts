import { performance } from "node:perf_hooks";

/** A scheduled callback; cancel() before it ran means it never runs. */
export interface ClockEntry {
  cancel(): void;
}

/**
 * The time source of the reconnecting stream: now() in ms and a callback at a planned time. The agent's
 * ProbeClock is one (with slack the stream does not use); tests pass a ManualClock (virtual time).
 */
export interface Clock {
  now(): number;
  schedule(at: number, fn: (now: number) => void): ClockEntry;
}

/** A Clock on plain Node timers and performance.now(). */
export const timerClock: Clock = {
  now: () => performance.now(),
  schedule(at, fn) {
    const timer = setTimeout(() => fn(performance.now()), Math.max(0, at - performance.now()));
    return { cancel: () => clearTimeout(timer) };
  },
};
