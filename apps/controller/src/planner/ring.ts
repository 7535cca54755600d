import type { Fleet } from "./fleet.ts";

/**
 * Consistent-hashing ring: nodes sorted by (hash of name, name); each node probes its `degree` successors, so
 * each is probed by its `degree` predecessors. A join or leave changes only the out-lists of the `degree` nodes
 * before the joining/leaving one. Requires `degree <= n-1`. Adds the edges to `out`.
 */
export function addRingEdges(fleet: Fleet, degree: number, out: readonly Set<number>[]): void {
  const n = fleet.names.length;
  const h = fleet.hashes;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => h[a]! - h[b]! || a - b);
  for (let p = 0; p < n; p++) {
    const targets = out[order[p]!]!;
    for (let d = 1; d <= degree; d++) targets.add(order[(p + d) % n]!);
  }
}
