import type { PlanNode } from "../types.ts";
import type { Prng } from "./prng.ts";

/**
 * A fleet of `size` uniquely named nodes over `zones` zones (zone-0 .. zone-{zones-1}). Zone sizes are skewed:
 * each node goes to a zone drawn with weight 1/(z+1), so the last zones are small and often have one node or none.
 */
export function randomFleet(rng: Prng, size: number, zones: number): PlanNode[] {
  const weights = Array.from({ length: zones }, (_, z) => 1 / (z + 1));
  const total = weights.reduce((x, y) => x + y, 0);
  const names = new Set<string>();
  const nodes: PlanNode[] = [];
  while (nodes.length < size) {
    const name = newName(rng, names);
    let r = rng.next() * total;
    let zone = 0;
    while (zone < zones - 1 && r >= weights[zone]!) {
      r -= weights[zone]!;
      zone++;
    }
    nodes.push({ name, zone: `zone-${zone}` });
  }
  return nodes;
}

/** A name not in `taken` (and adds it), shaped like a Kubernetes node name. */
export function newName(rng: Prng, taken: Set<string>): string {
  for (;;) {
    const name = `node-${rng.int(0, 36 ** 6 - 1).toString(36)}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** A fleet size in [1, max], log-uniform so small fleets (the edge cases) are drawn often. */
export function biasedSize(rng: Prng, max: number): number {
  return Math.min(max, Math.max(1, Math.floor(Math.exp(rng.next() * Math.log(max + 1)))));
}
