/**
 * Fixed-window budgets: `limit` attempts per key per window; the window starts at a key's first attempt and the
 * key is refused until it ends. FixedWindowLimiter is in-process (the spec's per-replica fallback); budgets shared
 * by replicas live in Redis (redis-budgets.ts) behind the same Budget interface.
 */

/** A per-key budget, possibly shared by replicas. */
export interface Budget {
  /** Spends one attempt of `key` unless its budget is spent. */
  spend(key: string): Promise<Spend>;
}

/** Makes budgets; `name` keeps budgets apart in a shared store. */
export type BudgetFactory = (name: string, limit: number, windowMs: number) => Budget;

/** Budgets held in this process (per replica), on the console's clock. */
export function inProcessBudgets(now: () => number): BudgetFactory {
  return (_name, limit, windowMs) => {
    const l = new FixedWindowLimiter(limit, windowMs, now);
    return { spend: async (key) => l.spend(key) };
  };
}

interface Window {
  start: number;
  count: number;
}

/** Outcome of spending one attempt. */
export type Spend = { ok: true } | { ok: false; retryAfterMs: number };

/** A per-key budget. */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Spends one attempt of `key`, unless its budget is spent. */
  spend(key: string): Spend {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      if (this.windows.size > 50_000) this.prune(t);
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) return { ok: false, retryAfterMs: w.start + this.windowMs - t };
    w.count++;
    return { ok: true };
  }

  /** Whether `key` has budget left, without spending it. */
  peek(key: string): Spend {
    const t = this.now();
    const w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs || w.count < this.limit) return { ok: true };
    return { ok: false, retryAfterMs: w.start + this.windowMs - t };
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(k);
  }
}
