/**
 * The per-pair figure map shared by the figure readers, and the presence read used by the fleet-wide ones.
 */
import type { InstantSample, PrometheusClient } from "./prometheus-client.ts";
import { anyOf, presence } from "./promql.ts";

/** What Prometheus says about one ordered pair. Absent fields were not measured (or not fetched). */
export interface PairFigures {
  failRatio?: number;
  lossRatio?: number;
  /** the latest results (between the last two samples) were all failures / all successes; absent: mixed or none */
  recent?: "fail" | "ok";
  rttP95Seconds?: number;
  pmtuBytes?: number;
  probeBytes?: number;
  /** the pmtu fail counter (black hole) rose within 15m */
  pmtuFail15m?: boolean;
  /** the latest pmtu verdict was a black hole (the fail counter rose last) */
  pmtuLatestFail?: boolean;
}

/** Measured pairs by pairKey. */
export type FigureMap = Map<string, PairFigures>;

/** Map key of an ordered pair (node names never hold a newline). */
export const pairKey = (source: string, destination: string): string => `${source}\n${destination}`;

/** The pair key of a sample's source_node/destination_node labels. */
export const sampleKey = (s: InstantSample): string =>
  pairKey(s.metric.source_node ?? "", s.metric.destination_node ?? "");

/** Sets `field` from each finite sample onto the pair's entry, creating the entry when `create`. */
export function apply(
  map: FigureMap,
  samples: readonly InstantSample[],
  set: (f: PairFigures, v: number) => void,
  create = false,
): void {
  for (const s of samples) {
    if (!Number.isFinite(s.value)) continue;
    const k = sampleKey(s);
    let f = map.get(k);
    if (!f && create) {
      f = {};
      map.set(k, f);
    }
    if (f) set(f, s.value);
  }
}

/** Sources per label-regex query. */
export const CHUNK = 100;

export function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * The measured pairs among `expected` (source -> destinations it should measure): one count per source, and
 * pair detail only for sources whose count differs from their expected destinations.
 */
export async function measuredPairs(
  prom: PrometheusClient,
  family: string,
  expected: ReadonlyMap<string, readonly string[]>,
  /** the per-source count read (raw PromQL or its recorded series) */
  countsQuery: string,
): Promise<FigureMap> {
  const counts = new Map<string, number>();
  for (const s of await prom.query(countsQuery)) counts.set(s.metric.source_node ?? "", s.value);
  const map: FigureMap = new Map();
  const partial: string[] = [];
  for (const [src, dests] of expected) {
    const c = counts.get(src) ?? 0;
    if (c === 0) continue;
    if (c === dests.length) for (const d of dests) map.set(pairKey(src, d), {});
    else partial.push(src);
  }
  const detail = await Promise.all(
    chunks(partial, CHUNK).map((c) => prom.query(presence(family, anyOf("source_node", c)))),
  );
  for (const samples of detail) apply(map, samples, () => {}, true);
  return map;
}
