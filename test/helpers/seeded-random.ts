/** Deterministic pseudo-random numbers in [0, 1) (a fixed-seed LCG), so a failing random test can be replayed. */
export function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}
