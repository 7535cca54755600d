import type { Fleet } from "./fleet.ts";
import { hashString, mix32 } from "./hash.ts";
import type { ProbePlan } from "./types.ts";

/** What one ordered zone pair (A -> B) already has: edge count and how often each node is used on each side. */
interface PairState {
  edges: number;
  readonly srcUse: Map<number, number>;
  readonly tgtUse: Map<number, number>;
  /** edges A -> B of the previous plan that are not (or no longer) ring edges: kept first when needed */
  readonly previous: [number, number][];
}

function newState(): PairState {
  return { edges: 0, srcUse: new Map(), tgtUse: new Map(), previous: [] };
}

function record(st: PairState, s: number, t: number): void {
  st.edges++;
  st.srcUse.set(s, (st.srcUse.get(s) ?? 0) + 1);
  st.tgtUse.set(t, (st.tgtUse.get(t) ?? 0) + 1);
}

/**
 * Adds zone chords to `out` (which holds the ring already). For every ordered pair of populated zones (A, B) the
 * A -> B edges of the final plan number at least min(chords, |A|*|B|), come from at least min(chords, |A|)
 * distinct A nodes and reach at least min(chords, |B|) distinct B nodes. Ring edges that cross zones count.
 * Missing edges are taken first from `previous` (endpoints still present, now crossing A -> B), then chosen by
 * rendezvous hashing keyed on the pair's zone names, preferring the least-used nodes of the pair.
 */
export function addZoneChords(
  fleet: Fleet,
  chords: number,
  out: readonly Set<number>[],
  previous: ProbePlan | undefined,
): void {
  const z = fleet.zones.length;
  if (z < 2 || chords === 0) return;
  const { zoneOf } = fleet;
  const pairs = new Map<number, PairState>();
  const stateOf = (s: number, t: number): PairState => {
    const key = zoneOf[s]! * z + zoneOf[t]!;
    let st = pairs.get(key);
    if (st === undefined) {
      st = newState();
      pairs.set(key, st);
    }
    return st;
  };
  out.forEach((targets, s) => {
    for (const t of targets) if (zoneOf[s] !== zoneOf[t]) record(stateOf(s, t), s, t);
  });
  if (previous !== undefined) {
    for (const [srcName, targets] of previous) {
      const s = fleet.indexOf.get(srcName);
      if (s === undefined) continue;
      for (const tName of targets) {
        const t = fleet.indexOf.get(tName);
        if (t === undefined || zoneOf[s] === zoneOf[t] || out[s]!.has(t)) continue;
        stateOf(s, t).previous.push([s, t]);
      }
    }
  }
  for (let a = 0; a < z; a++) {
    for (let b = 0; b < z; b++) {
      if (a === b) continue;
      satisfyPair(fleet, a, b, chords, out, pairs.get(a * z + b) ?? newState());
    }
  }
}

function satisfyPair(
  fleet: Fleet,
  a: number,
  b: number,
  chords: number,
  out: readonly Set<number>[],
  st: PairState,
): void {
  const A = fleet.members[a]!;
  const B = fleet.members[b]!;
  const wantEdges = Math.min(chords, A.length * B.length);
  const wantSrc = Math.min(chords, A.length);
  const wantTgt = Math.min(chords, B.length);
  const satisfied = () => st.edges >= wantEdges && st.srcUse.size >= wantSrc && st.tgtUse.size >= wantTgt;
  if (satisfied()) return;

  const seed = hashString(`${fleet.zones[a]}\u0000${fleet.zones[b]}`);
  const tSeed = mix32(seed ^ 0x5bd1e995);
  const h = fleet.hashes;
  const srcScore = (i: number) => mix32(seed ^ h[i]!);
  const tgtScore = (i: number) => mix32(tSeed ^ h[i]!);
  const add = (s: number, t: number) => {
    out[s]!.add(t);
    record(st, s, t);
  };

  // 1. Keep what the previous plan had, best gain first (a new source or target is worth more than a count).
  if (st.previous.length > 0) {
    const cands = st.previous.sort(
      (x, y) =>
        srcScore(y[0]) - srcScore(x[0]) || tgtScore(y[1]) - tgtScore(x[1]) || x[0] - y[0] || x[1] - y[1],
    );
    while (!satisfied()) {
      let best: [number, number] | undefined;
      let bestGain = 0;
      for (const c of cands) {
        if (out[c[0]]!.has(c[1])) continue;
        const gain =
          (st.srcUse.size < wantSrc && !st.srcUse.has(c[0]) ? 2 : 0) +
          (st.tgtUse.size < wantTgt && !st.tgtUse.has(c[1]) ? 2 : 0) +
          (st.edges < wantEdges ? 1 : 0);
        if (gain > bestGain) {
          best = c;
          bestGain = gain;
        }
      }
      if (best === undefined) break;
      add(best[0], best[1]);
    }
  }

  // 2. Fresh edges. While a side lacks distinct nodes, its least-used node is an unused one, so the edge is new.
  while (st.srcUse.size < wantSrc || st.tgtUse.size < wantTgt) {
    add(leastUsed(A, st.srcUse, srcScore), leastUsed(B, st.tgtUse, tgtScore));
  }
  // 3. Only the count is short: both zones are smaller than `chords`, so scan every absent pair.
  while (st.edges < wantEdges) {
    let best: [number, number] | undefined;
    let bestKey = [0, 0, 0];
    for (const s of A) {
      for (const t of B) {
        if (out[s]!.has(t)) continue;
        const key = [(st.srcUse.get(s) ?? 0) + (st.tgtUse.get(t) ?? 0), -srcScore(s), -tgtScore(t)];
        if (best === undefined || lexLess(key, bestKey)) {
          best = [s, t];
          bestKey = key;
        }
      }
    }
    if (best === undefined) break;
    add(best[0], best[1]);
  }
}

/** The node with the lowest use, ties to the highest score, then the lowest index (members are ascending). */
function leastUsed(
  members: readonly number[],
  use: ReadonlyMap<number, number>,
  score: (i: number) => number,
) {
  let best = members[0]!;
  let bestUse = Number.POSITIVE_INFINITY;
  let bestScore = -1;
  for (const i of members) {
    const u = use.get(i) ?? 0;
    if (u > bestUse) continue;
    const sc = score(i);
    if (u < bestUse || sc > bestScore) {
      best = i;
      bestUse = u;
      bestScore = sc;
    }
  }
  return best;
}

function lexLess(x: readonly number[], y: readonly number[]): boolean {
  for (let i = 0; i < x.length; i++) {
    if (x[i]! !== y[i]!) return x[i]! < y[i]!;
  }
  return false;
}
