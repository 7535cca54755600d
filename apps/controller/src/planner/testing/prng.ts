/** A seeded PRNG (mulberry32) for property tests and benchmarks: same seed, same sequence. */
export interface Prng {
  /** uniform in [0, 1) */
  next(): number;
  /** uniform integer in [lo, hi] */
  int(lo: number, hi: number): number;
  /** a random element of a non-empty array */
  pick<T>(items: readonly T[]): T;
  /** a shuffled copy (Fisher-Yates) */
  shuffle<T>(items: readonly T[]): T[];
}

export function createPrng(seed: number): Prng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)]!,
    shuffle: (items) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}
