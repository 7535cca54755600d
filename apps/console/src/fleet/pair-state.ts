/**
 * The pair state agents export (issue 35): `<prefix>_peer_problem_ratio{plane}` holds only the pairs in trouble now
 * (tcp: the share of its latest two runs that failed; udp, icmp: the share of packets its latest run lost; pmtu: 1
 * for a black hole), so "failing now" is one small instant read whatever the size of the fleet, instead of two
 * irates over every pair's counters. Agents that export it say so with `<prefix>_agent_info` (one series each);
 * the pairs of older agents (spec §9) keep the counter reads, restricted to their sources.
 */
import type { FleetProtocol } from "@svc/contract";
import type { PairStatesBody } from "@svc/protocol";
import { CHUNK, chunks, type FigureMap, sampleKey } from "./figure-map.ts";
import type { InstantSample, PrometheusClient } from "./prometheus-client.ts";
import { anyOf, type Families, failingNow, loss, recoveredNow, sel } from "./promql.ts";
import type { FleetReads } from "./recording-rules.ts";

/** The sources whose agents export their pair state. */
export async function stateSources(prom: PrometheusClient, prefix: string): Promise<Set<string>> {
  const rows = await prom.query(`group by (source_node) (${prefix}_agent_info)`);
  return new Set(rows.map((s) => s.metric.source_node ?? ""));
}

/** The pairs of `protocol` in trouble now (of the sources that export their state). */
export function problems(
  prom: PrometheusClient,
  prefix: string,
  protocol: FleetProtocol,
): Promise<InstantSample[]> {
  return prom.query(sel(`${prefix}_peer_problem_ratio`, `plane="${protocol}"`));
}

/**
 * The exported state (`samples`) with the pair states the agents reported to the controller in place of their
 * sources' samples: a reporting source's pairs of `protocol` are exactly its reported problems (the metrics may
 * still hold what it reported a scrape ago, or not hold yet what it reports now).
 */
export function withPushed(
  samples: readonly InstantSample[],
  pushed: PairStatesBody,
  protocol: FleetProtocol,
): InstantSample[] {
  const reporting = new Set(pushed.sources);
  const t = Date.now() / 1000;
  const out = samples.filter((s) => !reporting.has(s.metric.source_node ?? ""));
  for (const p of pushed.problems)
    if (p.plane === protocol && reporting.has(p.source))
      out.push({ metric: { source_node: p.source, destination_node: p.destination }, value: p.ratio, t });
  return out;
}

/**
 * Applies the pair state of the `sources` that export it to their measured pairs of tcp, udp or icmp: the latest
 * loss (udp, icmp), and the latest results: all failed (ratio 1), mixed (tcp 0.5) or, for a pair with failures in
 * the window and no trouble now, all succeeded.
 */
export function applyProblems(
  map: FigureMap,
  protocol: FleetProtocol,
  samples: readonly InstantSample[],
  sources: ReadonlySet<string>,
): void {
  const now = new Map<string, number>();
  for (const s of samples) if (sources.has(s.metric.source_node ?? "")) now.set(sampleKey(s), s.value);
  for (const [key, f] of map) {
    if (!sources.has(key.slice(0, key.indexOf("\n")))) continue;
    const v = now.get(key);
    if (protocol !== "tcp") f.lossRatio = v ?? 0;
    if (v !== undefined && v >= 1) f.recent = "fail";
    else if (protocol === "tcp" && v !== undefined) delete f.recent;
    else if ((f.failRatio ?? 0) > 0) f.recent = "ok";
    else delete f.recent;
  }
}

/** pmtu: the latest verdict of the pairs of `sources` is a black hole exactly when their state says so. */
export function applyPmtuProblems(
  map: FigureMap,
  samples: readonly InstantSample[],
  sources: ReadonlySet<string>,
): void {
  const black = new Set(samples.map(sampleKey));
  for (const [key, f] of map) {
    if (!sources.has(key.slice(0, key.indexOf("\n")))) continue;
    f.pmtuLatestFail = black.has(key);
    if (f.pmtuLatestFail) f.pmtuFail15m = true;
  }
}

/** The latest-results and latest-loss reads of the sources that do not export their state. */
export interface LegacyNow {
  downNow: InstantSample[];
  upNow: InstantSample[];
  losses: InstantSample[];
}

/**
 * The counter reads for `legacy` sources (older agents): the fleet-wide reads (`reads`, raw or recorded) when every
 * source is one, else raw reads restricted to them, CHUNK sources a query.
 */
export async function legacyNow(
  prom: PrometheusClient,
  fam: Families,
  reads: FleetReads,
  legacy: readonly string[],
  all: number,
): Promise<LegacyNow> {
  const q = (expr: string | undefined) => (expr === undefined ? Promise.resolve([]) : prom.query(expr));
  if (legacy.length === 0) return { downNow: [], upNow: [], losses: [] };
  if (legacy.length === all) {
    const [downNow, upNow, losses] = await Promise.all([
      q(reads.failingNow),
      q(reads.recoveredNow),
      q(reads.lossNonzero),
    ]);
    return { downNow, upNow, losses };
  }
  const parts = await Promise.all(
    chunks(legacy, CHUNK).map(async (c) => {
      const m = anyOf("source_node", c);
      const [downNow, upNow, losses] = await Promise.all([
        prom.query(failingNow(fam.results, m)),
        prom.query(recoveredNow(fam.results, m)),
        fam.loss ? prom.query(`${loss(fam.loss, m)} > 0`) : Promise.resolve([]),
      ]);
      return { downNow, upNow, losses };
    }),
  );
  return {
    downNow: parts.flatMap((p) => p.downNow),
    upNow: parts.flatMap((p) => p.upNow),
    losses: parts.flatMap((p) => p.losses),
  };
}
