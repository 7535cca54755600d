import { compareNames, hashString } from "./hash.ts";
import type { PlanNode } from "./types.ts";

/** The planner's index of a fleet: node i is the i-th name in sorted order; zone z the z-th sorted zone. */
export interface Fleet {
  readonly names: readonly string[];
  readonly zones: readonly string[];
  /** zone index of node i */
  readonly zoneOf: Int32Array;
  /** node indices of zone z, ascending */
  readonly members: readonly (readonly number[])[];
  /** hashString(name) of node i */
  readonly hashes: Uint32Array;
  readonly indexOf: ReadonlyMap<string, number>;
}

/**
 * Builds the index, independent of input order. A name given twice keeps its smallest zone (code-unit order),
 * so a caller's duplicate cannot make the plan depend on the order it listed nodes in.
 */
export function indexFleet(nodes: readonly PlanNode[]): Fleet {
  const zoneByName = new Map<string, string>();
  for (const n of nodes) {
    const z = zoneByName.get(n.name);
    if (z === undefined || compareNames(n.zone, z) < 0) zoneByName.set(n.name, n.zone);
  }
  const names = [...zoneByName.keys()].sort(compareNames);
  const zones = [...new Set(zoneByName.values())].sort(compareNames);
  const zoneIndex = new Map(zones.map((z, i) => [z, i]));
  const zoneOf = new Int32Array(names.length);
  const hashes = new Uint32Array(names.length);
  const members: number[][] = zones.map(() => []);
  const indexOf = new Map<string, number>();
  names.forEach((name, i) => {
    const z = zoneIndex.get(zoneByName.get(name) ?? "") ?? 0;
    zoneOf[i] = z;
    hashes[i] = hashString(name);
    members[z]?.push(i);
    indexOf.set(name, i);
  });
  return { names, zones, zoneOf, members, hashes, indexOf };
}
