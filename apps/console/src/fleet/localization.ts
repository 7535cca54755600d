/**
 * Where is the fault, served (GET /api/v1/fleet/suspects): the four matrices of the fleet (tcp, udp, icmp, pmtu)
 * read into the localization engine (@svc/localize), now (kept fresh like the matrices, with the engine's memory
 * carried from answer to answer), as of a past instant, or over a window.
 *
 * Cell states: failing -> fail; degraded with packet loss in the latest run, or with mixed latest results, ->
 * lossy; healthy, and degraded only by the 5-minute window or by RTT -> ok; no data, not run, unplanned -> not
 * observed. pmtu: a black hole -> fail, everything measured else ok (a reduced path MTU is not a failure).
 * A node reports when its own result series are fresh: the sample times of the nodes whose column fails are read
 * from the metrics store (their staleness is what tells a node down from one cut off); a node with planned pairs
 * but no measured row in any protocol reports nothing.
 */
import type { FleetMatrix, FleetProtocol, FleetSuspects, MatrixCell, Suspect } from "@svc/contract";
import {
  type LocalizeMemory,
  type LocalizeNode,
  type LocalizeResult,
  localize,
  Observations,
} from "@svc/localize";
import { pairKey } from "./figure-map.ts";
import { HistoryUnavailableError } from "./fleet-errors.ts";
import { SnapshotCache } from "./snapshot-cache.ts";

const PROTOCOLS: readonly FleetProtocol[] = ["tcp", "udp", "icmp", "pmtu"];
const OK = 0;
const FAIL = 1;
const LOSSY = 2;
/** The live answer is recomputed when older than this. */
export const SUSPECTS_FRESH_MS = 2000;
/**
 * A past instant is answered as the live console would have: after answers every AT_STEP_MS over the AT_LEAD_MS
 * before it (the engine's memory needs to have seen a column fail before the node's next report confirms it up).
 */
export const AT_LEAD_MS = 20_000;
export const AT_STEP_MS = 5_000;

/** The instants a past instant `at` is answered through, oldest first (`at` last). */
export function leadIn(at: number, after = Number.NEGATIVE_INFINITY): number[] {
  const out: number[] = [];
  for (let t = at - AT_LEAD_MS; t < at; t += AT_STEP_MS) if (t > after) out.push(t);
  return [...out, at];
}
/** A window is read at this many instants at most. */
export const WINDOW_INSTANTS = 8;
/** Nodes whose report time is asked for at most (those whose column fails); the rest count as reporting. */
const REPORT_QUERY_NODES = 300;

/** The engine's state of one cell, or -1 when it is not observed. */
export function cellState(protocol: FleetProtocol, cell: MatrixCell, mixed: ReadonlySet<string>): number {
  switch (cell.tier) {
    case "failing":
      return FAIL;
    case "healthy":
      return OK;
    case "degraded":
      if (protocol === "pmtu") return OK;
      if ((cell.lossRatio ?? 0) > 0) return LOSSY;
      return mixed.has(pairKey(cell.source, cell.destination)) ? LOSSY : OK;
    default:
      return -1;
  }
}

/** A matrix and its pairs (pairKey) whose latest results were mixed. */
export interface MatrixState {
  matrix: FleetMatrix;
  mixed: ReadonlySet<string>;
}

/** What the localization reads of the fleet (FleetService). */
export interface FleetReads {
  matrixState(protocol: FleetProtocol, at?: number): Promise<MatrixState>;
  reportedAt(nodes: readonly string[], at?: number): Promise<{ now: number; at: Map<string, number> }>;
}

interface Answer {
  result: LocalizeResult;
  at: number;
}

/** The localization of the fleet. */
export class Localization {
  private memory: LocalizeMemory | undefined;
  private readonly live: SnapshotCache<FleetSuspects>;
  private stopWarm: (() => void) | undefined;

  constructor(
    private readonly fleet: FleetReads,
    private readonly now: () => number = Date.now,
  ) {
    this.live = new SnapshotCache(
      async () => {
        const a = await this.answer(undefined, this.memory);
        this.memory = a.result.memory;
        return toBody(a.result, a.at);
      },
      SUSPECTS_FRESH_MS,
      60_000,
      now,
    );
  }

  /** Keeps the live answer fresh while it is asked for (every second, for 10 minutes after the last ask). */
  start(): void {
    this.stopWarm ??= this.live.keepWarm(1000, 10 * 60_000);
  }

  stop(): void {
    this.stopWarm?.();
    this.stopWarm = undefined;
  }

  /** The suspects now. */
  current(): Promise<FleetSuspects> {
    return this.live.get("now");
  }

  /** The suspects as of `at` (epoch ms), answered through leadIn(at). */
  async at(at: number): Promise<FleetSuspects> {
    let memory: LocalizeMemory | undefined;
    for (const t of leadIn(at).slice(0, -1))
      memory = (await this.answer(t, memory).catch(skipUnstored))?.result.memory;
    const a = await this.answer(at, memory);
    return toBody(a.result, a.at);
  }

  /**
   * Every suspect seen at any of up to WINDOW_INSTANTS instants across [from, to] (epoch ms). A window ending now
   * (within AT_STEP_MS) ends with the live answer, the one the Overview and the Matrix show: its memory has followed
   * every answer since a fault began, where instants read afterwards would judge a node (down or cut off) only from
   * the reports between them. An earlier end is read as the Time Machine reads an instant (leadIn(to)), so a column
   * that failed just before it is judged rather than left unknown.
   */
  async window(from: number, to: number): Promise<FleetSuspects> {
    const n = Math.max(2, Math.min(WINDOW_INSTANTS, Math.floor((to - from) / 5000) + 1));
    const instants = Array.from({ length: n }, (_, i) => Math.round(from + ((to - from) * i) / (n - 1)));
    const endsNow = this.now() - to < AT_STEP_MS;
    instants.splice(instants.length - 1, 1, ...(endsNow ? [] : leadIn(to, instants.at(-2) ?? from)));
    const seen = new Map<string, Suspect>();
    let last: FleetSuspects | undefined;
    const take = (body: FleetSuspects, t: number) => {
      const stamp = new Date(t).toISOString();
      for (const s of body.suspects) {
        const before = seen.get(s.id);
        seen.set(s.id, {
          ...s,
          role: before?.role === "suspect" ? "suspect" : s.role,
          confidence: Math.max(s.confidence, before?.confidence ?? 0),
          explains: Math.max(s.explains, before?.explains ?? 0),
          since: before?.since ?? s.since,
          firstSeen: before?.firstSeen ?? stamp,
          lastSeen: stamp,
        });
      }
    };
    let memory: LocalizeMemory | undefined;
    let unstored: unknown;
    for (const t of instants) {
      // instants before the first stored topology (the console's history starts later) are skipped
      const a = await this.answer(t, memory).catch((e: unknown) => {
        unstored = e;
        return skipUnstored(e);
      });
      if (!a) continue;
      memory = a.result.memory;
      last = toBody(a.result, t);
      take(last, t);
    }
    if (endsNow) {
      last = await this.current();
      take(last, to);
      instants.push(to);
    }
    if (!last) throw unstored;
    // a node first unreachable and later judged (down, or cut off) is told once, as judged
    const judged = new Set(
      [...seen.values()]
        .filter((x) => x.node && x.mode !== "unreachable" && x.kind !== "node-protocol")
        .map((x) => x.node),
    );
    const suspects = [...seen.values()]
      .filter((x) => !(x.mode === "unreachable" && judged.has(x.node)))
      .sort((a, b) => (a.role === b.role ? b.explains - a.explains : a.role === "suspect" ? -1 : 1));
    return {
      generatedAt: new Date(this.now()).toISOString(),
      instants: instants.map((t) => new Date(t).toISOString()),
      failingCells: last.failingCells,
      explainedCells: last.explainedCells,
      observedCells: last.observedCells,
      suspects,
    };
  }

  private async answer(at: number | undefined, memory: LocalizeMemory | undefined): Promise<Answer> {
    const states = await Promise.all(PROTOCOLS.map((p) => this.fleet.matrixState(p, at)));
    const { obs, nodes, failingColumns, silent } = observations(states);
    const asked = failingColumns.slice(0, REPORT_QUERY_NODES);
    const reports = asked.length > 0 ? await this.fleet.reportedAt(asked, at) : undefined;
    const now = reports?.now ?? (at ?? this.now()) / 1000;
    const queried = new Set(asked);
    for (const n of nodes) {
      if (queried.has(n.name)) n.reportedAt = reports?.at.get(n.name);
      else if (!silent.has(n.name)) n.reportedAt = now;
    }
    return { result: localize(obs, { now, memory }), at: at ?? this.now() };
  }
}

/** undefined for an instant the console's history does not reach back to; any other failure is thrown. */
function skipUnstored(e: unknown): undefined {
  if (e instanceof HistoryUnavailableError) return undefined;
  throw e;
}

/** The engine's observations of the four matrices, the nodes whose column fails and those whose rows are empty. */
function observations(states: readonly MatrixState[]): {
  obs: Observations;
  nodes: LocalizeNode[];
  failingColumns: string[];
  silent: Set<string>;
} {
  const first = states[0]?.matrix;
  const nodes: LocalizeNode[] = (first?.nodes ?? []).map((n) => ({ name: n.name, zone: n.zone }));
  const index = new Map(nodes.map((n, i) => [n.name, i]));
  const capacity = states.reduce((a, s) => a + s.matrix.cells.length, 0);
  const obs = new Observations(nodes, capacity);
  const failingCol = new Uint8Array(nodes.length);
  const planned = new Uint8Array(nodes.length);
  const measured = new Uint8Array(nodes.length);
  states.forEach(({ matrix, mixed }, p) => {
    const protocol = PROTOCOLS[p] ?? "tcp";
    const n = matrix.nodes.length;
    // a sparse matrix leaves the unplanned pairs out: positions say nothing there
    const sameNodes = sameOrder(matrix, nodes) && matrix.cells.length === n * (n - 1);
    matrix.cells.forEach((cell, k) => {
      // cells are row-major without the diagonal: positions give the indices when the node lists agree
      let s: number | undefined;
      let d: number | undefined;
      if (sameNodes) {
        s = Math.floor(k / (n - 1));
        const col = k % (n - 1);
        d = col >= s ? col + 1 : col;
      } else {
        s = index.get(cell.source);
        d = index.get(cell.destination);
        if (s === undefined || d === undefined) return;
      }
      if (cell.tier !== "notrun" && cell.tier !== "unplanned") planned[s] = 1;
      const state = cellState(protocol, cell, mixed);
      if (state < 0) return;
      measured[s] = 1;
      if (state === FAIL && p < 3) failingCol[d] = 1;
      obs.addIndexed(p, s, d, state, {
        lossRatio: cell.lossRatio,
        pmtuBytes: cell.pmtu?.bytes,
        probeBytes: cell.pmtu?.probeBytes,
      });
    });
  });
  const failingColumns = nodes.filter((_, i) => failingCol[i] === 1).map((n) => n.name);
  const silent = new Set(nodes.filter((_, i) => planned[i] === 1 && measured[i] === 0).map((n) => n.name));
  return { obs, nodes, failingColumns, silent };
}

function sameOrder(m: FleetMatrix, nodes: readonly LocalizeNode[]): boolean {
  return m.nodes.length === nodes.length && m.nodes.every((n, i) => n.name === nodes[i]?.name);
}

function toBody(r: LocalizeResult, at: number): FleetSuspects {
  return {
    generatedAt: new Date(at).toISOString(),
    failingCells: r.failingCells,
    explainedCells: r.explainedCells,
    observedCells: r.observedCells,
    suspects: r.suspects.map((s) => ({ ...s, since: new Date((s.since ?? at / 1000) * 1000).toISOString() })),
  };
}
