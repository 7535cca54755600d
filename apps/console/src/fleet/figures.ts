/**
 * Per-pair figures read from Prometheus for one protocol. Two modes:
 * - scopedFigures: full values for the pairs a matcher selects (a node's rows, one pair); small answers.
 * - fleetFigures: the whole fleet, shaped so the answers stay small at 500 nodes (249,500 pairs): presence comes
 *   as a count per source (detail only for sources missing some), and figures come only where they are not
 *   healthy (fail ratio > 0, loss > 0, RTT p95 over the degraded bound). A measured pair absent from those answers
 *   is healthy: its fail ratio (and loss) is 0 and its RTT p95 is not fetched.
 * A pair is in the returned map exactly when it was measured (has a series now).
 */

import type { FleetProtocol } from "@svc/contract";
import type { PairStatesBody } from "@svc/protocol";
import { apply, chunks, type FigureMap, measuredPairs, sampleKey } from "./figure-map.ts";
import {
  applyPmtuProblems,
  applyProblems,
  legacyNow,
  problems,
  stateSources,
  withPushed,
} from "./pair-state.ts";
import { fleetPmtu, scopedPmtu } from "./pmtu-figures.ts";
import type { InstantSample, PrometheusClient } from "./prometheus-client.ts";
import {
  anyOf,
  eq,
  failingNow,
  failRatio,
  familiesOf,
  loss,
  presence,
  recoveredNow,
  rttP95,
} from "./promql.ts";
import { type FleetReads, rawReads } from "./recording-rules.ts";

/** Sources whose slow pairs one p95 query reads (each source one `or` branch). */
const SLOW_SOURCES_PER_QUERY = 25;

/**
 * One matcher per source of the slow pairs, naming exactly its slow destinations: the p95 read touches the bucket
 * series of the slow pairs only, not every pair of their sources (at 0.2 % slow pairs that was most of the fleet's
 * buckets, and most of a recorded refresh).
 */
export function slowSelectors(slow: readonly InstantSample[]): string[] {
  const bySource = new Map<string, string[]>();
  for (const s of slow) {
    const src = s.metric.source_node ?? "";
    const list = bySource.get(src) ?? [];
    list.push(s.metric.destination_node ?? "");
    bySource.set(src, list);
  }
  return [...bySource].map(([src, dests]) => `${eq("source_node", src)},${anyOf("destination_node", dests)}`);
}

/** Marks the pairs whose latest results all failed or all succeeded (tiers.ts). */
function applyRecent(
  map: FigureMap,
  downNow: readonly InstantSample[],
  upNow: readonly InstantSample[],
): void {
  apply(map, upNow, (f) => (f.recent = "ok"));
  apply(map, downNow, (f) => (f.recent = "fail"));
}

/**
 * Full values of `protocol` for the pairs `matcher` selects (e.g. `source_node="a"`); with `pushed` (now only),
 * the reporting sources' latest tcp, udp and icmp results come from their reports, as in the matrix.
 */
export async function scopedFigures(
  prom: PrometheusClient,
  prefix: string,
  protocol: FleetProtocol,
  matcher: string,
  pushed?: PairStatesBody,
): Promise<FigureMap> {
  const map = await scopedMetricFigures(prom, prefix, protocol, matcher);
  // path MTU stays with the metrics: its badge names the size that crosses, which only they carry
  if (!pushed || protocol === "pmtu") return map;
  applyProblems(map, protocol, withPushed([], pushed, protocol), new Set(pushed.sources));
  return map;
}

/** scopedFigures from the metrics alone. */
async function scopedMetricFigures(
  prom: PrometheusClient,
  prefix: string,
  protocol: FleetProtocol,
  matcher: string,
): Promise<FigureMap> {
  const fam = familiesOf(prefix, protocol);
  if (protocol === "pmtu") return scopedPmtu(prom, fam, matcher);
  const [present, fails, losses, rtts, downNow, upNow] = await Promise.all([
    prom.query(presence(fam.results, matcher)),
    prom.query(failRatio(fam.results, matcher)),
    fam.loss ? prom.query(loss(fam.loss, matcher)) : [],
    fam.rtt ? prom.query(rttP95(fam.rtt, matcher)) : [],
    prom.query(failingNow(fam.results, matcher)),
    prom.query(recoveredNow(fam.results, matcher)),
  ]);
  const map: FigureMap = new Map();
  apply(map, present, (f) => (f.failRatio = 0), true);
  apply(map, fails, (f, v) => (f.failRatio = v));
  apply(map, losses, (f, v) => (f.lossRatio = v), true);
  apply(map, rtts, (f, v) => (f.rttP95Seconds = v));
  applyRecent(map, downNow, upNow);
  return map;
}

/** The whole fleet's figures of `protocol`, exceptions only (see the file comment). */
export async function fleetFigures(
  prom: PrometheusClient,
  prefix: string,
  protocol: FleetProtocol,
  expected: ReadonlyMap<string, readonly string[]>,
  /** the fleet-wide reads: raw PromQL (default) or the recording rules' series (recording-rules.ts) */
  reads: FleetReads = rawReads(prefix, protocol),
  /**
   * the pair states the agents reported to the controller (now only): for tcp, udp and icmp they win over the
   * metrics' for their sources
   */
  reported?: PairStatesBody,
): Promise<FigureMap> {
  const fam = familiesOf(prefix, protocol);
  // path MTU stays with the metrics: its badge names the size that crosses, which only they carry
  const pushed = protocol === "pmtu" ? undefined : reported;
  // pairs in trouble now: as the agents reported them to the controller, else from the state they export (one
  // small read), the counters only for older agents
  const stateful = await stateSources(prom, prefix);
  for (const s of pushed?.sources ?? []) stateful.add(s);
  const legacy = [...expected.keys()].filter((s) => !stateful.has(s));
  const exported = stateful.size > 0 ? problems(prom, prefix, protocol) : Promise.resolve([]);
  const state = pushed ? exported.then((s) => withPushed(s, pushed, protocol)) : exported;
  if (protocol === "pmtu") {
    const [map, black] = await Promise.all([fleetPmtu(prom, fam, expected, reads), state]);
    applyPmtuProblems(map, black, stateful);
    return map;
  }
  const q = (expr: string | undefined) => (expr === undefined ? Promise.resolve([]) : prom.query(expr));
  const [map, fails, slow, now, old] = await Promise.all([
    measuredPairs(prom, fam.results, expected, reads.presentCounts),
    q(reads.failRatioNonzero),
    q(reads.slow),
    state,
    legacyNow(prom, fam, reads, legacy, expected.size),
  ]);
  for (const f of map.values()) {
    f.failRatio = 0;
    if (fam.loss) f.lossRatio = 0;
  }
  apply(map, fails, (f, v) => (f.failRatio = v), true);
  apply(map, old.losses, (f, v) => (f.lossRatio = v), true);
  applyRecent(map, old.downNow, old.upNow);
  applyProblems(map, protocol, now, stateful);
  if (fam.rtt && slow.length > 0) {
    const slowKeys = new Set(slow.map(sampleKey));
    const parts = await Promise.all(
      chunks(slowSelectors(slow), SLOW_SOURCES_PER_QUERY).map((c) =>
        prom.query(c.map((m) => rttP95(fam.rtt ?? "", m)).join(" or ")),
      ),
    );
    for (const samples of parts)
      apply(
        map,
        samples.filter((s) => slowKeys.has(sampleKey(s))),
        (f, v) => (f.rttP95Seconds = v),
        true,
      );
  }
  return map;
}
