export interface BackoffPolicy {
  /** first delay, ms (spec: 2 s) */
  initialMs: number;
  /** cap, ms (spec: 30 s) */
  maxMs: number;
  /** fraction taken off at random, 0-1 (spec: up to 25%) */
  jitter: number;
}

/** The spec's re-register backoff: 2 s doubling to 30 s, up to 25% jitter. */
export const REGISTER_BACKOFF: BackoffPolicy = { initialMs: 2000, maxMs: 30_000, jitter: 0.25 };

/**
 * Delay before retry number `attempt` (0 = first retry): min(max, initial * 2^attempt), less up to `jitter` of
 * it at random (`random` in [0, 1)), so it never exceeds the cap.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 - policy.jitter * random()));
}
