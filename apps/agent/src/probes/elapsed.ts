import { performance } from "node:perf_hooks";

/** Milliseconds elapsed since `start` (a `performance.now()` reading), rounded to microseconds. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

/** A short, stable description of a network error: its errno code when it has one, else its message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
