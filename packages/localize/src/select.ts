/**
 * The smallest explanation: a greedy minimum-description choice over the candidates (the set-cover view of 007
 * and NetBouncer, with a price on every wrong prediction). Every failing cell left unexplained costs 1; choosing a
 * candidate costs ALPHA, plus BETA for every healthy cell it predicts to fail. The candidate that lowers the total
 * most is taken, its cells are marked explained, and so on while a candidate still lowers it. Ties go to the more
 * specific element (a node before its zone, a zone before the fleet).
 *
 * With ALPHA = BETA = 0.5 a single failing pair is worth a suspect of its own (1 > 0.5), and a node is preferred
 * to separate pair suspects once more than about 45 % of its row or column fails: a column filling up as
 * scrapes arrive names its node, not its first few pairs.
 */
import {
  AB_ALL,
  BA_ALL,
  BOTH_ALL,
  type CandidateSpace,
  DOWN,
  IN_ALL,
  IN_P,
  ISO,
  MTU_IN,
  MTU_OUT,
  OUT_ALL,
  OUT_P,
  PAIR_VARIANTS,
  PMTU_AB,
  PMTU_BA,
  PMTU_BOTH,
  type Tally,
} from "./candidates.ts";
import { OK } from "./observations.ts";

export const ALPHA = 0.5;
export const BETA = 0.5;
/** At most this many suspects in one explanation (a fleet on fire is one answer, not a thousand). */
export const MAX_SUSPECTS = 12;
/** At most this many alternatives after the explanation. */
export const MAX_ALTERNATIVES = 4;
/** A suspect explaining only lossy cells needs at least this many, and at least half its scope lossy. */
export const MIN_LOSSY_CELLS = 3;

/** Why a node's candidates are or are not open (see eligible()). */
export interface NodeStatus {
  /** the node reports its own measurements now */
  reporting: boolean;
  /** its column fails on more than one plane and it has not reported since that was first seen */
  unconfirmed: boolean;
  /** its column fails on one plane and it has not reported since that was first seen (its suspect is held) */
  pending: boolean;
}

/** Whether candidate `c` is a fault into a node that has not reported since its column was seen failing. */
export function waitsForReport(space: CandidateSpace, status: readonly NodeStatus[], c: number): boolean {
  if (c >= space.zoneIsoBase) return false;
  const kind = Math.floor(c / space.n);
  const into = kind === IN_ALL || kind === ISO || (kind >= IN_P && kind < IN_P + 3);
  return into && status[c % space.n]?.pending === true;
}

/** Whether alternative `c` is a pair with an end that waits for its report (the held suspect speaks for it then). */
export function pairOfWaiting(space: CandidateSpace, status: readonly NodeStatus[], c: number): boolean {
  if (c < space.pairBase) return false;
  const key = space.slotKeys[Math.floor((c - space.pairBase) / PAIR_VARIANTS)] ?? 0;
  return status[Math.floor(key / space.n)]?.pending === true || status[key % space.n]?.pending === true;
}

/** Specificity order for ties: lower wins. */
function priority(space: CandidateSpace, c: number): number {
  if (c < space.zoneIsoBase) {
    const kind = Math.floor(c / space.n);
    if (kind === DOWN) return 0;
    if (kind === ISO) return 1;
    if (kind === OUT_ALL || kind === IN_ALL) return 2;
    if (kind === MTU_IN || kind === MTU_OUT) return 4;
    return 3;
  }
  if (c < space.zonePairBase) return 6; // with two zones a zone cut off is its zone pair: name the pair
  if (c < space.protocolBase) return 5;
  if (c < space.pairBase) return 13;
  const v = (c - space.pairBase) % PAIR_VARIANTS;
  if (v === BOTH_ALL) return 7;
  if (v === AB_ALL || v === BA_ALL) return 8;
  if (v === PMTU_BOTH) return 11;
  if (v === PMTU_AB || v === PMTU_BA) return 12;
  return 9 + (v < 6 ? 0 : 1);
}

/**
 * Whether candidate `c` may be part of an answer: node-down only for a node that reports nothing (or is not yet
 * known to be up); network faults into or around a node only while it reports and is confirmed up (a node that
 * stopped cannot be called cut off, and one cut off cannot be called down); and every suspect rests on a failing
 * cell, or on at least MIN_LOSSY_CELLS lossy cells that are half its scope.
 */
export function eligible(space: CandidateSpace, t: Tally, status: readonly NodeStatus[], c: number): boolean {
  const bad = t.bad[c] ?? 0;
  if (bad === 0) return false;
  const hard = t.hard[c] ?? 0;
  const ok = t.ok[c] ?? 0;
  if (hard === 0 && (bad < MIN_LOSSY_CELLS || bad < ok)) return false;
  if (c >= space.zoneIsoBase) return true;
  const kind = Math.floor(c / space.n);
  const st = status[c % space.n];
  if (!st) return false;
  if (kind === DOWN) return (!st.reporting || st.unconfirmed) && hard > 0;
  if (kind === MTU_IN || kind === MTU_OUT) return true;
  if (!st.reporting) return false;
  if (kind === IN_ALL || kind === ISO || (kind >= IN_P && kind < IN_P + 3)) return !st.unconfirmed;
  return kind === OUT_ALL || (kind >= OUT_P && kind < OUT_P + 3);
}

/** The chosen candidates (in the order taken) and the cells they explain. */
export interface Selection {
  chosen: number[];
  /** cells explained by each chosen candidate */
  explainedBy: Map<number, number>;
  explained: number;
  alternatives: number[];
}

const gainOf = (bad: number, ok: number) => bad - ALPHA - BETA * ok;

/** Runs the greedy choice over the tallies. */
export function select(space: CandidateSpace, t: Tally, status: readonly NodeStatus[]): Selection {
  const o = space.obs;
  const open = new Uint8Array(space.size);
  const candidates: number[] = [];
  for (let c = 0; c < space.size; c++)
    if (eligible(space, t, status, c)) {
      open[c] = 1;
      candidates.push(c);
    }
  const unexplained = Int32Array.from(t.bad);
  const badCells: number[] = [];
  for (let i = 0; i < o.size; i++) if (o.state[i] !== OK) badCells.push(i);
  const done = new Uint8Array(o.size);
  const buf = new Int32Array(32);
  const chosen: number[] = [];
  const explainedBy = new Map<number, number>();
  let explained = 0;
  while (chosen.length < MAX_SUSPECTS) {
    let best = -1;
    let bestGain = 0;
    for (const c of candidates) {
      if (open[c] === 0) continue;
      const g = gainOf(unexplained[c] ?? 0, t.ok[c] ?? 0);
      if (g > bestGain + 1e-9 || (best >= 0 && Math.abs(g - bestGain) <= 1e-9 && better(space, c, best))) {
        best = c;
        bestGain = g;
      }
    }
    if (best < 0) break;
    open[best] = 0;
    chosen.push(best);
    let mine = 0;
    for (const i of badCells) {
      if (done[i] === 1) continue;
      const k = space.covering(i, buf);
      let covered = false;
      for (let j = 0; j < k; j++) if (buf[j] === best) covered = true;
      if (!covered) continue;
      done[i] = 1;
      mine++;
      for (let j = 0; j < k; j++) {
        const c = buf[j] ?? 0;
        unexplained[c] = (unexplained[c] ?? 0) - 1;
      }
    }
    explainedBy.set(best, mine);
    explained += mine;
  }
  const alternatives = candidates
    .filter((c) => open[c] === 1 && fit(t, c) >= 0.25)
    .sort((a, b) => gainOf(t.bad[b] ?? 0, t.ok[b] ?? 0) - gainOf(t.bad[a] ?? 0, t.ok[a] ?? 0) || a - b)
    .slice(0, MAX_ALTERNATIVES);
  return { chosen, explainedBy, explained, alternatives };
}

function better(space: CandidateSpace, c: number, than: number): boolean {
  const pc = priority(space, c);
  const pt = priority(space, than);
  return pc < pt || (pc === pt && c < than);
}

/** Share of a candidate's predicted cells that do fail (or lose packets). */
export function fit(t: Tally, c: number): number {
  const bad = t.bad[c] ?? 0;
  return bad / (bad + (t.ok[c] ?? 0));
}
