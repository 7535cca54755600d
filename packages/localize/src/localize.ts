/**
 * Where is the fault: from the current state of every planned, measured pair per protocol, the smallest set of
 * suspects that explains the failures (select.ts), each with its evidence (describe.ts).
 *
 * Node down versus network fault. A node whose agent reports nothing and whose column fails is down (its agent,
 * when ping still answers; the host or its link, when nothing does). A node that still reports is up, so failures
 * around it are a network fault. Between the two lies a race: when a node or its link goes down, its peers' failed
 * probes can reach the matrix before its own series go stale, and its last report (from before the fault) still
 * reads healthy; and the planes do not turn red together (a refused tcp connect is seen before a udp timeout). So a
 * node whose column fails while its own row is clean waits until it reports again after the failure was first
 * seen: then it is up and the fault is the network's; or its series vanish and it is down. While it waits, a column
 * failing on more than one plane is named `unreachable` (down or cut off, not known yet), and one failing on a
 * single plane (which a node down is not, once its other planes arrive) names nothing: its suspect is held. The
 * memory carries when each such column was first seen failing (or that its node is known up), for as long as any
 * cell of it still fails (a plane falling back under the threshold for one answer does not start the wait again);
 * the engine itself reads no clock.
 */
import { CandidateSpace, IN_P, OUT_ALL, tally } from "./candidates.ts";
import { companions, describe } from "./describe.ts";
import type { Observations } from "./observations.ts";
import { gatherStats } from "./scope-stats.ts";
import { fit, type NodeStatus, pairOfWaiting, select, waitsForReport } from "./select.ts";
import type { LocalizeMemory, LocalizeResult, Suspect } from "./types.ts";

/**
 * A suspect that explains at most this many failing cells (one pair, up to its three reachability planes) is held
 * back until it has been seen for HOLD_SMALL_S: a probe run lost to a stall on a loaded host turns one cell red for
 * one evaluation, the first source to see a node go down shows one pair failing on every plane before the others'
 * scrapes arrive, and a single pair's real fault persists.
 */
export const SMALL_CELLS = 3;
export const HOLD_SMALL_S = 4;

/** Options of one answer. */
export interface LocalizeOptions {
  /** epoch seconds of this answer (the metrics store's evaluation time) */
  now: number;
  /** the previous answer's memory (absent: nothing remembered, e.g. the first answer or a past instant) */
  memory?: LocalizeMemory;
}

/** The memory's "since" of a node known up: every report is after it. */
const UP_SINCE = Number.NEGATIVE_INFINITY;

const EMPTY_MEMORY: LocalizeMemory = { unconfirmedSince: new Map(), firstSeen: new Map() };

/** Suspects for the observed cells. Deterministic: the same observations, options and memory give the same answer. */
export function localize(obs: Observations, opts: LocalizeOptions): LocalizeResult {
  const memory = opts.memory ?? EMPTY_MEMORY;
  const space = new CandidateSpace(obs);
  const t = tally(space);
  const unconfirmedSince = new Map<string, number>();
  const status: NodeStatus[] = obs.nodes.map((node, x) => {
    const reporting = node.reportedAt !== undefined;
    let planes = 0;
    let anyHard = false;
    for (let p = 0; p < 3; p++) {
      const c = space.node(IN_P + p, x);
      const hard = t.hard[c] ?? 0;
      if (hard > 0) anyHard = true;
      if (hard > 0 && fit(t, c) >= 0.5 && hard * 2 >= (t.bad[c] ?? 0)) planes++;
    }
    const remembered = memory.unconfirmedSince.get(node.name);
    if (planes === 0) {
      if (anyHard && remembered !== undefined) unconfirmedSince.set(node.name, remembered);
      return { reporting, unconfirmed: false, pending: false };
    }
    const since = remembered ?? opts.now;
    const rowFails = (t.hard[space.node(OUT_ALL, x)] ?? 0) > 0;
    const reportedAfter = (node.reportedAt ?? Number.NEGATIVE_INFINITY) > since;
    const waiting = reporting && !rowFails && !reportedAfter;
    // once known up, it stays known up while its column fails (UP_SINCE), whatever cleared the row meanwhile
    unconfirmedSince.set(node.name, reporting && !waiting ? UP_SINCE : since);
    return { reporting, unconfirmed: planes >= 2 && waiting, pending: planes === 1 && waiting };
  });
  const sel = select(space, t, status);
  const ids = [...sel.chosen, ...sel.alternatives];
  const watched = new Set<number>(ids);
  for (const c of ids) for (const w of companions(space, c)) watched.add(w);
  const stats = gatherStats(space, watched);
  const ctx = { space, stats, status };
  const failing = space.badCells.length;
  const firstSeen = new Map<string, number>();
  const suspects: Suspect[] = [];
  const seen = new Set<string>();
  let held = 0;
  for (const c of ids) {
    const d = describe(ctx, c);
    if (seen.has(d.id)) continue; // two candidates can read as the same element (e.g. a pair both ways)
    seen.add(d.id);
    const chosen = sel.explainedBy.has(c);
    const bad = t.bad[c] ?? 0;
    const explains = chosen ? (sel.explainedBy.get(c) ?? 0) : 0;
    const share = chosen ? explains / bad : (0.5 * bad) / Math.max(1, failing);
    const since = memory.firstSeen.get(d.id) ?? opts.now;
    firstSeen.set(d.id, since);
    const small = (chosen ? explains : bad) <= SMALL_CELLS && opts.now - since < HOLD_SMALL_S;
    if (small || waitsForReport(space, status, c) || (!chosen && pairOfWaiting(space, status, c))) {
      held += explains;
      continue;
    }
    suspects.push({
      ...d,
      role: chosen ? "suspect" : "alternative",
      confidence: Math.round(fit(t, c) * share * 100) / 100,
      explains: chosen ? explains : bad,
      since,
    });
  }
  suspects.sort((a, b) => rank(a) - rank(b)); // stable: the explanation in the order taken, then alternatives
  return {
    suspects,
    failingCells: failing,
    explainedCells: sel.explained - held,
    observedCells: obs.size,
    memory: { unconfirmedSince, firstSeen },
  };
}

const rank = (s: Suspect) => (s.role === "suspect" ? 0 : 1);
