/**
 * Path MTU figures (spec §2.8): pmtu_probe_bytes (size probed, set every run), pmtu_bytes (size that crossed;
 * removed when nothing crossed), pmtu_results_total (fail = black hole). Presence is the probe_bytes series.
 * The verdict of the latest run is the result counter that rose last: a pair whose fail counter rose within 15m
 * and whose success counter did not is in a black hole now; for the few pairs where both rose, the times of their
 * last rises decide (a tie counts as a black hole).
 */
import { apply, CHUNK, chunks, type FigureMap, measuredPairs, pairKey, sampleKey } from "./figure-map.ts";
import type { InstantSample, PrometheusClient } from "./prometheus-client.ts";
import { anyOf, type Families, failedWithin, lastRise, latest, presence, roseWithin, SD } from "./promql.ts";
import type { FleetReads } from "./recording-rules.ts";

/** Marks pmtuFail15m and pmtuLatestFail on the pairs `matcher` selects ("" = all, then read per source chunk). */
async function latestVerdicts(
  prom: PrometheusClient,
  fam: Families,
  map: FigureMap,
  matcher: string,
  /** fleet-wide: the reads of the 15m sets (raw or recorded) */
  reads?: FleetReads,
): Promise<void> {
  const [f15, both] = await Promise.all([
    prom.query(reads?.fail15m ?? failedWithin(fam.results, matcher, "15m")),
    prom.query(
      reads?.mixed15m ??
        `(${roseWithin(fam.results, "success", matcher, "15m")}) and on (${SD}) (${failedWithin(fam.results, matcher, "15m")})`,
    ),
  ]);
  apply(map, f15, (f) => {
    f.pmtuFail15m = true;
    f.pmtuLatestFail = true;
  });
  if (both.length === 0) return;
  const mixed = new Set(both.map(sampleKey));
  const matchers =
    matcher !== ""
      ? [matcher]
      : chunks([...new Set(both.map((s) => s.metric.source_node ?? ""))], CHUNK).map((c) =>
          anyOf("source_node", c),
        );
  const read = async (result: "fail" | "success"): Promise<Map<string, number>> => {
    const parts: InstantSample[][] = await Promise.all(
      matchers.map((m) => prom.query(lastRise(fam.results, result, m))),
    );
    return new Map(parts.flat().map((s) => [sampleKey(s), s.value]));
  };
  const [lastFail, lastOk] = await Promise.all([read("fail"), read("success")]);
  for (const k of mixed) {
    const f = map.get(k);
    if (!f) continue;
    f.pmtuLatestFail = (lastFail.get(k) ?? 0) >= (lastOk.get(k) ?? 0);
  }
}

function names(fam: Families): { bytes: string; probe: string } {
  return { bytes: fam.pmtuBytes ?? "", probe: fam.probeBytes ?? "" };
}

/** Full PMTU values for the pairs `matcher` selects. */
export async function scopedPmtu(prom: PrometheusClient, fam: Families, matcher: string): Promise<FigureMap> {
  const { bytes, probe } = names(fam);
  const [present, b, p] = await Promise.all([
    prom.query(presence(probe, matcher)),
    prom.query(latest(bytes, matcher)),
    prom.query(latest(probe, matcher)),
  ]);
  const map: FigureMap = new Map();
  apply(map, present, () => {}, true);
  apply(map, b, (f, v) => (f.pmtuBytes = v), true);
  apply(map, p, (f, v) => (f.probeBytes = v), true);
  await latestVerdicts(prom, fam, map, matcher);
  return map;
}

/**
 * The fleet's PMTU figures, exceptions only: reduced pairs (bytes < probe), pairs where nothing crossed last run,
 * recent black holes. A measured pair in none of those is full size; its sizes come from the source's probe size
 * when all its pairs share one.
 */
export async function fleetPmtu(
  prom: PrometheusClient,
  fam: Families,
  expected: ReadonlyMap<string, readonly string[]>,
  reads: FleetReads,
): Promise<FigureMap> {
  const { probe } = names(fam);
  const q = (expr: string | undefined) => (expr === undefined ? Promise.resolve([]) : prom.query(expr));
  const [map, reducedBytes, reducedProbe, nothingCrossed, maxProbe, minProbe] = await Promise.all([
    measuredPairs(prom, probe, expected, reads.presentCounts),
    q(reads.reducedBytes),
    q(reads.reducedProbe),
    q(reads.nothingCrossed),
    q(reads.probeMax),
    q(reads.probeMin),
  ]);
  const probeOf = new Map<string, number>();
  const mins = new Map(minProbe.map((s) => [s.metric.source_node ?? "", s.value]));
  for (const s of maxProbe) {
    const src = s.metric.source_node ?? "";
    if (mins.get(src) === s.value) probeOf.set(src, s.value);
  }
  for (const [src, dests] of expected) {
    const size = probeOf.get(src);
    if (size === undefined) continue;
    for (const d of dests) {
      const f = map.get(pairKey(src, d));
      if (f) {
        f.pmtuBytes = size;
        f.probeBytes = size;
      }
    }
  }
  apply(map, reducedBytes, (f, v) => (f.pmtuBytes = v), true);
  apply(map, reducedProbe, (f, v) => (f.probeBytes = v), true);
  apply(map, nothingCrossed, (f) => delete f.pmtuBytes, true);
  await latestVerdicts(prom, fam, map, "", reads);
  return map;
}
