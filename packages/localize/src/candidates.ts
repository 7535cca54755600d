/**
 * Candidate explanations (hypotheses) as numbers, and the cells each one covers. A candidate predicts that every
 * observed cell it covers fails; the selection (select.ts) weighs the failing cells it explains against the
 * healthy cells it wrongly predicts to fail.
 *
 * Layout of candidate ids, N nodes, Z zones, S pair slots (one per unordered pair with a failing cell):
 *   [0, 12N)            per node x, NODE_KIND * N + x
 *   [12N, +Z)           zone cut off from every other zone
 *   [.., +Z*Z)          zone pair a < b (both directions), a * Z + b
 *   [.., +4)            one protocol fleet-wide
 *   [.., +15S)          pair variants of slot k, k * 15 + PAIR_VARIANT
 */
import { FAIL, type Observations, OK, PMTU } from "./observations.ts";

/** Per-node candidate kinds. */
export const OUT_ALL = 0; // x reaches none of its peers (tcp, udp, icmp)
export const OUT_P = 1; // + protocol 0-2: x reaches none of its peers over one protocol
export const IN_ALL = 4; // nobody reaches x
export const IN_P = 5; // + protocol: nobody reaches x over one protocol
export const ISO = 8; // x neither reaches nor is reached
export const DOWN = 9; // x's column fails and x is down (or not known to be up)
export const MTU_IN = 10; // large packets towards x vanish
export const MTU_OUT = 11; // large packets from x vanish
export const NODE_KINDS = 12;

/** Pair variants of an unordered pair {a, b}, a < b. */
export const BOTH_ALL = 0;
export const AB_ALL = 1;
export const BA_ALL = 2;
export const BOTH_P = 3; // + protocol 0-2
export const AB_P = 6; // + protocol 0-2
export const BA_P = 9; // + protocol 0-2
export const PMTU_AB = 12;
export const PMTU_BA = 13;
export const PMTU_BOTH = 14;
export const PAIR_VARIANTS = 15;

/** The id space of one set of observations. */
export class CandidateSpace {
  readonly n: number;
  readonly z: number;
  readonly zoneIsoBase: number;
  readonly zonePairBase: number;
  readonly protocolBase: number;
  readonly pairBase: number;
  /** unordered pair key (a * n + b, a < b) -> slot, for pairs with at least one failing cell */
  readonly slots = new Map<number, number>();
  /** slot -> the pair key */
  readonly slotKeys: number[] = [];
  readonly size: number;
  /** indices of the failing and lossy cells */
  readonly badCells: number[] = [];
  /** observed cells per protocol and row / column / zone pair (see observed()) */
  readonly structure: Structure;

  constructor(readonly obs: Observations) {
    this.n = obs.nodes.length;
    this.z = obs.zoneNames.length;
    this.zoneIsoBase = NODE_KINDS * this.n;
    this.zonePairBase = this.zoneIsoBase + this.z;
    this.protocolBase = this.zonePairBase + this.z * this.z;
    this.pairBase = this.protocolBase + 4;
    for (let i = 0; i < obs.size; i++) {
      if (obs.state[i] === OK) continue;
      this.badCells.push(i);
      const s = obs.source[i] ?? 0;
      const d = obs.destination[i] ?? 0;
      const key = s < d ? s * this.n + d : d * this.n + s;
      if (!this.slots.has(key)) {
        this.slots.set(key, this.slotKeys.length);
        this.slotKeys.push(key);
      }
    }
    this.size = this.pairBase + PAIR_VARIANTS * this.slotKeys.length;
    this.structure = structureOf(obs, this.slots);
  }

  /** Observed cells of protocol `p` that candidate `c` covers. */
  observed(c: number, p: number): number {
    const st = this.structure;
    const n = this.n;
    const reach = p < 3;
    if (c < this.zoneIsoBase) {
      const kind = Math.floor(c / n);
      const x = c % n;
      const row = st.row[p * n + x] ?? 0;
      const col = st.col[p * n + x] ?? 0;
      if (kind === OUT_ALL) return reach ? row : 0;
      if (kind === IN_ALL || kind === DOWN) return reach ? col : 0;
      if (kind === ISO) return reach ? row + col : 0;
      if (kind === MTU_IN) return p === PMTU ? col : 0;
      if (kind === MTU_OUT) return p === PMTU ? row : 0;
      if (kind < IN_ALL) return kind - OUT_P === p ? row : 0;
      return kind - IN_P === p ? col : 0;
    }
    const z = this.z;
    const zp = (a: number, b: number) => st.zone[(p * z + a) * z + b] ?? 0;
    if (c < this.zonePairBase) {
      if (!reach) return 0;
      const a = c - this.zoneIsoBase;
      let sum = 0;
      for (let b = 0; b < z; b++) if (b !== a) sum += zp(a, b) + zp(b, a);
      return sum;
    }
    if (c < this.protocolBase) {
      const k = c - this.zonePairBase;
      const a = Math.floor(k / z);
      const b = k % z;
      return reach ? zp(a, b) + zp(b, a) : 0;
    }
    if (c < this.pairBase) return c - this.protocolBase === p ? (st.total[p] ?? 0) : 0;
    const slot = Math.floor((c - this.pairBase) / PAIR_VARIANTS);
    const v = (c - this.pairBase) % PAIR_VARIANTS;
    const ab = st.pair[slot * 2 * 4 + p] ?? 0;
    const ba = st.pair[(slot * 2 + 1) * 4 + p] ?? 0;
    if (v === PMTU_AB) return p === PMTU ? ab : 0;
    if (v === PMTU_BA) return p === PMTU ? ba : 0;
    if (v === PMTU_BOTH) return p === PMTU ? ab + ba : 0;
    if (!reach) return 0;
    if (v === BOTH_ALL) return ab + ba;
    if (v === AB_ALL) return ab;
    if (v === BA_ALL) return ba;
    if (v < AB_P) return v - BOTH_P === p ? ab + ba : 0;
    if (v < BA_P) return v - AB_P === p ? ab : 0;
    return v - BA_P === p ? ba : 0;
  }

  node(kind: number, x: number): number {
    return kind * this.n + x;
  }

  /**
   * Writes the candidates covering cell `i` into `out` and returns their count (a node-down candidate covers its
   * icmp column for the explanation; tally() does not count an icmp success against it).
   */
  covering(i: number, out: Int32Array): number {
    const o = this.obs;
    const p = o.protocol[i] ?? 0;
    const s = o.source[i] ?? 0;
    const d = o.destination[i] ?? 0;
    const n = this.n;
    let k = 0;
    const a = s < d ? s : d;
    const b = s < d ? d : s;
    const slot = this.slots.get(a * n + b);
    const forward = s === a;
    if (p === PMTU) {
      out[k++] = MTU_IN * n + d;
      out[k++] = MTU_OUT * n + s;
      out[k++] = this.protocolBase + PMTU;
      if (slot !== undefined) {
        out[k++] = this.pairBase + slot * PAIR_VARIANTS + (forward ? PMTU_AB : PMTU_BA);
        out[k++] = this.pairBase + slot * PAIR_VARIANTS + PMTU_BOTH;
      }
      return k;
    }
    out[k++] = OUT_ALL * n + s;
    out[k++] = (OUT_P + p) * n + s;
    out[k++] = IN_ALL * n + d;
    out[k++] = (IN_P + p) * n + d;
    out[k++] = ISO * n + s;
    out[k++] = ISO * n + d;
    out[k++] = DOWN * n + d;
    const zs = this.obs.zoneOf[s] ?? 0;
    const zd = this.obs.zoneOf[d] ?? 0;
    if (zs !== zd) {
      out[k++] = this.zoneIsoBase + zs;
      out[k++] = this.zoneIsoBase + zd;
      out[k++] = this.zonePairBase + (zs < zd ? zs * this.z + zd : zd * this.z + zs);
    }
    out[k++] = this.protocolBase + p;
    if (slot !== undefined) {
      const base = this.pairBase + slot * PAIR_VARIANTS;
      out[k++] = base + BOTH_ALL;
      out[k++] = base + (forward ? AB_ALL : BA_ALL);
      out[k++] = base + BOTH_P + p;
      out[k++] = base + (forward ? AB_P : BA_P) + p;
    }
    return k;
  }
}

/** Per-candidate counts over every observed cell. */
export interface Tally {
  /** failing or lossy cells covered */
  bad: Int32Array;
  /** failing cells covered */
  hard: Int32Array;
  /** healthy cells a candidate predicts to fail */
  ok: Int32Array;
}

const inc = (a: Int32Array, i: number) => {
  a[i] = (a[i] ?? 0) + 1;
};

/** Observed cells per protocol p (0-3): by source row and destination column (p * n + x), by zone pair
 * ((p * z + a) * z + b), in all, and per pair slot and direction ((slot * 2 + dir) * 4 + p, dir 0 = a -> b). */
export interface Structure {
  row: Int32Array;
  col: Int32Array;
  zone: Int32Array;
  total: Int32Array;
  pair: Uint8Array;
}

/** One light pass over every cell: a few counters each, no coverage lists. */
function structureOf(o: Observations, slots: ReadonlyMap<number, number>): Structure {
  const n = o.nodes.length;
  const z = o.zoneNames.length;
  const st: Structure = {
    row: new Int32Array(4 * n),
    col: new Int32Array(4 * n),
    zone: new Int32Array(4 * z * z),
    total: new Int32Array(4),
    pair: new Uint8Array(slots.size * 8),
  };
  // only nodes on a failing pair can be on a slot: the others skip the map lookup
  const onSlot = new Uint8Array(n);
  for (const key of slots.keys()) {
    onSlot[Math.floor(key / n)] = 1;
    onSlot[key % n] = 1;
  }
  for (let i = 0; i < o.size; i++) {
    const p = o.protocol[i] ?? 0;
    const s = o.source[i] ?? 0;
    const d = o.destination[i] ?? 0;
    inc(st.row, p * n + s);
    inc(st.col, p * n + d);
    inc(st.zone, (p * z + (o.zoneOf[s] ?? 0)) * z + (o.zoneOf[d] ?? 0));
    inc(st.total, p);
    if (onSlot[s] === 1 && onSlot[d] === 1) {
      const slot = slots.get(s < d ? s * n + d : d * n + s);
      if (slot !== undefined) st.pair[(slot * 2 + (s < d ? 0 : 1)) * 4 + p] = 1;
    }
  }
  return st;
}

/** Per-candidate counts over every observed cell. */
export interface Tally {
  /** failing or lossy cells covered */
  bad: Int32Array;
  /** failing cells covered */
  hard: Int32Array;
  /** healthy cells a candidate predicts to fail (filled in only for candidates with a failing cell) */
  ok: Int32Array;
}

/**
 * Counts, for every candidate, the failing cells it covers (a pass over the failing cells only); its healthy
 * predicted cells are its observed cells less its failing ones (a node-down candidate predicts tcp and udp only:
 * a down agent's host may still answer ping).
 */
export function tally(space: CandidateSpace): Tally {
  const t: Tally = {
    bad: new Int32Array(space.size),
    hard: new Int32Array(space.size),
    ok: new Int32Array(space.size),
  };
  const buf = new Int32Array(32);
  const o = space.obs;
  for (const i of space.badCells) {
    const k = space.covering(i, buf);
    const hard = o.state[i] === FAIL;
    for (let j = 0; j < k; j++) {
      const c = buf[j] ?? 0;
      inc(t.bad, c);
      if (hard) inc(t.hard, c);
    }
  }
  for (let c = 0; c < space.size; c++) {
    if ((t.bad[c] ?? 0) === 0) continue;
    const isDown = c < space.zoneIsoBase && Math.floor(c / space.n) === DOWN;
    if (isDown) {
      const x = c % space.n;
      const predicted = space.observed(c, 0) + space.observed(c, 1);
      const failing = (t.bad[space.node(IN_P, x)] ?? 0) + (t.bad[space.node(IN_P + 1, x)] ?? 0);
      t.ok[c] = predicted - failing;
      continue;
    }
    let predicted = 0;
    for (let p = 0; p < 4; p++) predicted += space.observed(c, p);
    t.ok[c] = predicted - (t.bad[c] ?? 0);
  }
  return t;
}
