/**
 * Path MTU figures (spec §2.8): pmtu_probe_bytes (size probed, set every run), pmtu_bytes (size that crossed;
 * removed when nothing crossed), pmtu_results_total (fail = black hole). Presence is the probe_bytes series.
 */
import { apply, type FigureMap, measuredPairs, pairKey } from "./figure-map.ts";
import type { PrometheusClient } from "./prometheus-client.ts";
import { type Families, failedWithin, latest, presence, SD } from "./promql.ts";

function names(fam: Families): { bytes: string; probe: string } {
  return { bytes: fam.pmtuBytes ?? "", probe: fam.probeBytes ?? "" };
}

/** Full PMTU values for the pairs `matcher` selects. */
export async function scopedPmtu(prom: PrometheusClient, fam: Families, matcher: string): Promise<FigureMap> {
  const { bytes, probe } = names(fam);
  const [present, b, p, f5, f15] = await Promise.all([
    prom.query(presence(probe, matcher)),
    prom.query(latest(bytes, matcher)),
    prom.query(latest(probe, matcher)),
    prom.query(failedWithin(fam.results, matcher, "5m")),
    prom.query(failedWithin(fam.results, matcher, "15m")),
  ]);
  const map: FigureMap = new Map();
  apply(map, present, () => {}, true);
  apply(map, b, (f, v) => (f.pmtuBytes = v), true);
  apply(map, p, (f, v) => (f.probeBytes = v), true);
  apply(map, f5, (f) => (f.pmtuFail5m = true));
  apply(map, f15, (f) => (f.pmtuFail15m = true));
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
): Promise<FigureMap> {
  const { bytes, probe } = names(fam);
  const [map, reducedBytes, reducedProbe, nothingCrossed, f5, f15, maxProbe, minProbe] = await Promise.all([
    measuredPairs(prom, probe, expected),
    prom.query(`${latest(bytes)} < ${latest(probe)}`),
    prom.query(`${latest(probe)} > ${latest(bytes)}`),
    prom.query(`group by (${SD}) (${probe}) unless group by (${SD}) (${bytes})`),
    prom.query(failedWithin(fam.results, "", "5m")),
    prom.query(failedWithin(fam.results, "", "15m")),
    prom.query(`max by (source_node) (${probe})`),
    prom.query(`min by (source_node) (${probe})`),
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
  apply(map, f5, (f) => (f.pmtuFail5m = true));
  apply(map, f15, (f) => (f.pmtuFail15m = true));
  return map;
}
