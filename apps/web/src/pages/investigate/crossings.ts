/**
 * Derived threshold crossings (spec §4.5 point 1): loss above 1 %, or RTT above twice the window's median. Each
 * series (one signal of the scope, already aggregated by its query, see crossing-queries.ts) is walked in time
 * order; going above the threshold is a non-info row (loss `error`, RTT `warn`), coming back to it or under is an
 * `info` row. A series already above at its first point crosses there (the trouble began before the window).
 * Points that are not finite numbers (NaN from 0/0, scrape gaps) change nothing.
 */
import type { TimelineEntry } from "./timeline.ts";

/** Loss above this ratio is a crossing. */
export const LOSS_THRESHOLD = 0.01;
/** RTT above this many times the window median is a crossing. */
export const RTT_FACTOR = 2;

export interface Series {
  signal: "loss" | "rtt";
  /** what the series measures, e.g. "udp packet loss" */
  name: string;
  /** [unix seconds, value] in time order, as Prometheus's range query gives them */
  points: readonly (readonly [number, number])[];
  /** the query that produced it (the rows' reference) */
  query: string;
}

/** Median of the finite values (mean of the two middle ones for an even count), or null. */
export function median(values: readonly number[]): number | null {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}

function ms(x: number): string {
  return `${(x * 1000).toFixed(x < 0.01 ? 2 : 1)} ms`;
}

/** The crossings of one series. */
export function crossings(series: Series): TimelineEntry[] {
  let threshold: number;
  let describe: (v: number) => { up: string; down: string };
  if (series.signal === "loss") {
    threshold = LOSS_THRESHOLD;
    describe = (v) => ({
      up: `${series.name} above 1% (${pct(v)})`,
      down: `${series.name} back to 1% or under (${pct(v)})`,
    });
  } else {
    const m = median(series.points.map((p) => p[1]));
    if (m === null || m <= 0) return [];
    threshold = RTT_FACTOR * m;
    describe = (v) => ({
      up: `${series.name} above twice the window median (${ms(v)} > 2 × ${ms(m)})`,
      down: `${series.name} back to twice the window median or under (${ms(v)})`,
    });
  }
  const out: TimelineEntry[] = [];
  let above = false;
  for (const [t, v] of series.points) {
    if (!Number.isFinite(v) || !Number.isFinite(t)) continue;
    const now = v > threshold;
    if (now === above) continue;
    above = now;
    const words = describe(v);
    out.push({
      timestamp: new Date(t * 1000).toISOString(),
      kind: "threshold-crossing",
      severity: now ? (series.signal === "loss" ? "error" : "warn") : "info",
      title: now ? words.up : words.down,
      detail: now ? "derived from Prometheus" : "derived from Prometheus · recovery",
      reference: series.query,
    });
  }
  return out;
}
