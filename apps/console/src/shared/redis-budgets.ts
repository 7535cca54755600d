/**
 * Sign-in budgets shared by replicas through Redis: one fixed window per key (INCR, PEXPIRE on the first attempt),
 * same semantics as the in-process FixedWindowLimiter but on Redis's clock. If a Redis command fails after startup
 * the attempt is judged by the in-process fallback budget instead (never a 5xx for a budget).
 */
import type { Redis } from "ioredis";
import type { BudgetFactory, Spend } from "../auth/rate-limit.ts";

const SPEND = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/** Budgets under `prefix` in `redis`; `fallback` judges attempts while Redis fails. */
export function redisBudgets(
  redis: Redis,
  prefix: string,
  fallback: BudgetFactory,
  onError: (e: unknown) => void = () => {},
): BudgetFactory {
  return (name, limit, windowMs) => {
    const local = fallback(name, limit, windowMs);
    return {
      async spend(key: string): Promise<Spend> {
        let got: unknown;
        try {
          got = await redis.eval(SPEND, 1, `${prefix}budget:${name}:${key}`, String(windowMs));
        } catch (e) {
          onError(e);
          return local.spend(key);
        }
        const [n = 0, ttl = windowMs] = (got as [number, number]).map(Number);
        return n <= limit ? { ok: true } : { ok: false, retryAfterMs: Math.max(1, ttl) };
      },
    };
  };
}
