/**
 * The pair states the agents reported to the controller, laid over a tcp, udp or icmp matrix snapshot when it is
 * served (not only when it is built): a refresh reads the metrics backend and can take seconds at fleet size (tens of
 * seconds on raw reads), while a pair's report is in the controller 100 ms after its probe saw it. The cells of the
 * reporting sources' pairs named by the snapshot's reports or by the latest ones are computed again from the
 * snapshot's window figures (fail ratio, RTT, which the cell carries) and the latest report, with the rule the
 * snapshot used (pair-state.ts applyProblems). Path MTU waits for the next refresh.
 */
import type { FleetMatrix, FleetProtocol, MatrixCell } from "@svc/contract";
import type { PairStatesBody } from "@svc/protocol";
import { type PairFigures, pairKey } from "./figure-map.ts";
import { verdictOf } from "./tiers.ts";

/** A snapshot's cells by pair key (built once per snapshot). */
const cellIndex = new WeakMap<FleetMatrix, Map<string, number>>();

function indexOf(m: FleetMatrix): Map<string, number> {
  let idx = cellIndex.get(m);
  if (!idx) {
    idx = new Map(m.cells.map((c, i) => [pairKey(c.source, c.destination), i]));
    cellIndex.set(m, idx);
  }
  return idx;
}

/** The latest-results part of a pair's figures from its reported ratio (undefined: fine now). */
function withReport(protocol: FleetProtocol, cell: MatrixCell, ratio: number | undefined): PairFigures {
  const f: PairFigures = {};
  if (cell.failRatio !== undefined) f.failRatio = cell.failRatio;
  if (cell.rttP95Seconds !== undefined) f.rttP95Seconds = cell.rttP95Seconds;
  if (protocol !== "tcp") f.lossRatio = ratio ?? 0;
  else if (cell.lossRatio !== undefined) f.lossRatio = cell.lossRatio;
  if (ratio !== undefined && ratio >= 1) f.recent = "fail";
  else if (protocol === "tcp" && ratio !== undefined) delete f.recent;
  else if ((f.failRatio ?? 0) > 0) f.recent = "ok";
  return f;
}

/**
 * `m` (built with the reports `built`) with the `latest` reports in place, and its mixed pairs (`mixed` updated
 * for the recomputed ones); `m` itself when no cell changes. Only sources reporting in both count: a source that
 * started or stopped reporting since the snapshot waits for the next refresh.
 */
export function overlayPushed(
  m: FleetMatrix,
  mixed: ReadonlySet<string>,
  built: PairStatesBody | undefined,
  latest: PairStatesBody | undefined,
): { matrix: FleetMatrix; mixed: ReadonlySet<string> } {
  const protocol = m.protocol;
  if (protocol === "pmtu" || built === undefined || latest === undefined || built === latest)
    return { matrix: m, mixed };
  const then = new Set(built.sources);
  const reporting = new Set(latest.sources.filter((s) => then.has(s)));
  const now = new Map<string, number>();
  for (const p of latest.problems)
    if (p.plane === protocol && reporting.has(p.source)) now.set(pairKey(p.source, p.destination), p.ratio);
  const keys = new Set(now.keys());
  for (const p of built.problems)
    if (p.plane === protocol && reporting.has(p.source)) keys.add(pairKey(p.source, p.destination));
  const idx = indexOf(m);
  let cells: MatrixCell[] | undefined;
  let nextMixed: Set<string> | undefined;
  for (const key of keys) {
    const i = idx.get(key);
    const cell = i === undefined ? undefined : m.cells[i];
    if (i === undefined || cell === undefined || cell.failRatio === undefined) continue; // not measured
    const f = withReport(protocol, cell, now.get(key));
    const next: MatrixCell = { ...cell, tier: verdictOf(protocol, f).tier };
    if (f.lossRatio !== undefined) next.lossRatio = f.lossRatio;
    else delete next.lossRatio;
    const isMixed = f.recent === undefined && (f.failRatio ?? 0) > 0;
    if (isMixed !== mixed.has(key)) {
      nextMixed ??= new Set(mixed);
      if (isMixed) nextMixed.add(key);
      else nextMixed.delete(key);
    }
    if (next.tier === cell.tier && next.lossRatio === cell.lossRatio) continue;
    cells ??= [...m.cells];
    cells[i] = next;
  }
  return { matrix: cells ? { ...m, cells } : m, mixed: nextMixed ?? mixed };
}
