/** Summary of probe start lateness (actual start - planned start), ms. */
export interface LatenessSummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** A bounded ring of the most recent lateness samples (ms). */
export class LatenessRecorder {
  readonly #samples: number[] = [];
  #next = 0;
  constructor(readonly limit = 10_000) {}

  add(ms: number): void {
    if (this.#samples.length < this.limit) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.limit;
  }

  samples(): number[] {
    return [...this.#samples];
  }

  summary(): LatenessSummary {
    const s = [...this.#samples].sort((a, b) => a - b);
    const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
    return { count: s.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s[s.length - 1] ?? 0 };
  }
}
