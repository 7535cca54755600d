import { indexFleet } from "./fleet.ts";
import { validateOptions } from "./options.ts";
import { addRingEdges } from "./ring.ts";
import type { PlanNode, PlanOptions, ProbePlan } from "./types.ts";
import { addZoneChords } from "./zone-chords.ts";

/**
 * Plans who probes whom (spec §2.3 `probePlan`, §8.2 `topology.*`). Pure and deterministic: the same node set,
 * options and `previous` give the same plan whatever order `nodes` comes in.
 *
 * Returns `undefined` for full mesh (every ordered pair intended; the topology omits `probePlan`): in mode
 * `full`, and in mode `sparse` while the fleet has fewer than `autoThreshold` nodes. Otherwise every node is a
 * key, mapped to its sorted targets:
 * - in-degree: each node is probed by at least min(ringDegree, n-1) distinct peers (consistent-hashing ring);
 * - zone chords: for every ordered pair of populated zones (A, B), at least min(zoneChords, |A|*|B|) probes
 *   A -> B, from at least min(zoneChords, |A|) distinct A nodes to at least min(zoneChords, |B|) distinct B nodes;
 * - no self-probes, no duplicates.
 * Pass the plan in force as `previous` so a join or leave moves as few probes as possible: still-valid chords of
 * `previous` are kept while they are needed. Node names are unique keys; a name listed twice keeps its smallest
 * zone. Throws RangeError on options outside their documented ranges (a configuration bug).
 */
export function planProbes(
  nodes: readonly PlanNode[],
  opts: PlanOptions,
  previous?: ProbePlan,
): ProbePlan | undefined {
  validateOptions(opts);
  if (opts.mode === "full") return undefined;
  const fleet = indexFleet(nodes);
  const n = fleet.names.length;
  if (n < opts.autoThreshold) return undefined;
  const out = Array.from({ length: n }, () => new Set<number>());
  addRingEdges(fleet, Math.min(opts.ringDegree, Math.max(n - 1, 0)), out);
  addZoneChords(fleet, opts.zoneChords, out, previous);
  const plan = new Map<string, readonly string[]>();
  out.forEach((targets, s) => {
    const sorted = [...targets].sort((x, y) => x - y).map((t) => fleet.names[t]!);
    plan.set(fleet.names[s]!, Object.freeze(sorted));
  });
  return plan;
}
