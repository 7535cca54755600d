/**
 * Figures behind the evidence sentences: for a few candidates, their cells by protocol and state (the same coverage
 * the selection used), plus the cells inside each zone.
 */
import { type CandidateSpace, MTU_OUT } from "./candidates.ts";
import { FAIL, OK, PMTU } from "./observations.ts";

/** Cells of one protocol in a scope. */
export interface ProtocolStats {
  observed: number;
  /** failing or lossy */
  bad: number;
  /** failing */
  hard: number;
  /** mean loss over the lossy and failing udp/icmp cells that report one */
  lossSum: number;
  lossCount: number;
  /** pmtu: the smallest size that crossed and the largest size probed, among failing cells */
  minBytes: number;
  maxProbe: number;
  /** pmtu: healthy cells that crossed below the size probed (a smaller path MTU, not a failure), and the smallest */
  reduced: number;
  reducedBytes: number;
}

const empty = (): ProtocolStats => ({
  observed: 0,
  bad: 0,
  hard: 0,
  lossSum: 0,
  lossCount: 0,
  minBytes: 0,
  maxProbe: 0,
  reduced: 0,
  reducedBytes: 0,
});

/** Per protocol (index 0-3) figures of a scope. */
export type ScopeStats = ProtocolStats[];

/** The figures of every watched candidate, and of the cells inside each zone (by zone index). */
export interface StatsPass {
  of: Map<number, ScopeStats>;
  intraZone: ScopeStats[];
}

function addBad(s: ScopeStats, space: CandidateSpace, i: number): void {
  const o = space.obs;
  const st = s[o.protocol[i] ?? 0];
  if (!st) return;
  st.bad++;
  if (o.state[i] === FAIL) st.hard++;
  const loss = o.loss[i] ?? 0;
  if (loss > 0) {
    st.lossSum += loss;
    st.lossCount++;
  }
  const bytes = o.bytes[i] ?? 0;
  if (bytes > 0 && (st.minBytes === 0 || bytes < st.minBytes)) st.minBytes = bytes;
  st.maxProbe = Math.max(st.maxProbe, o.probe[i] ?? 0);
}

/**
 * The figures of `watched` candidates: observed cells from the structure counts, failing ones from a pass over the
 * failing cells, and (for path-MTU suspects) the reduced crossings of their nodes' rows.
 */
export function gatherStats(space: CandidateSpace, watched: Iterable<number>): StatsPass {
  const of = new Map<number, ScopeStats>();
  for (const c of watched) {
    const s = [empty(), empty(), empty(), empty()];
    s.forEach((st, p) => {
      st.observed = space.observed(c, p);
    });
    of.set(c, s);
  }
  const z = space.z;
  const intraZone = space.obs.zoneNames.map((_, zi) =>
    [0, 1, 2, 3].map((p) => ({ ...empty(), observed: space.structure.zone[(p * z + zi) * z + zi] ?? 0 })),
  );
  const buf = new Int32Array(32);
  const o = space.obs;
  for (const i of space.badCells) {
    const zs = o.zoneOf[o.source[i] ?? 0] ?? 0;
    if (zs === o.zoneOf[o.destination[i] ?? 0]) {
      const zone = intraZone[zs];
      if (zone) addBad(zone, space, i);
    }
    const k = space.covering(i, buf);
    for (let j = 0; j < k; j++) {
      const s = of.get(buf[j] ?? -1);
      if (s) addBad(s, space, i);
    }
  }
  addReduced(space, of);
  return { of, intraZone };
}

/** Healthy pmtu cells that crossed below the probed size, for the watched path-MTU candidates' rows. */
function addReduced(space: CandidateSpace, of: Map<number, ScopeStats>): void {
  const rows = new Map<number, ProtocolStats>();
  for (const [c, s] of of) {
    if (c >= space.zoneIsoBase || Math.floor(c / space.n) !== MTU_OUT) continue;
    const st = s[PMTU];
    if (st) rows.set(c % space.n, st);
  }
  if (rows.size === 0) return;
  const o = space.obs;
  for (let i = 0; i < o.size; i++) {
    if (o.protocol[i] !== PMTU || o.state[i] !== OK) continue;
    const st = rows.get(o.source[i] ?? -1);
    const bytes = o.bytes[i] ?? 0;
    if (!st || bytes === 0 || bytes >= (o.probe[i] ?? 0)) continue;
    st.reduced++;
    if (st.reducedBytes === 0 || bytes < st.reducedBytes) st.reducedBytes = bytes;
  }
}
/** Sums of several protocols' figures. */
export function total(s: ScopeStats, protocols: readonly number[] = [0, 1, 2]): ProtocolStats {
  const t = empty();
  for (const p of protocols) {
    const x = s[p];
    if (!x) continue;
    t.observed += x.observed;
    t.bad += x.bad;
    t.hard += x.hard;
    t.lossSum += x.lossSum;
    t.lossCount += x.lossCount;
  }
  return t;
}
