/**
 * The pair page (GET /api/v1/fleet/pairs/:source/:destination): per protocol the pair's cell plus history over the
 * window (RTT p95, loss, fail ratio; PMTU bytes), and the latest MTR path from svc_mtr_hop_rtt_seconds.
 * MTR hops carry no loss (the family has none); silent hops have no series and are absent.
 */
import type {
  FleetPair,
  FleetProtocol,
  MtrHop,
  PairHistoryPoint,
  PairProtocolHealth,
  PairWindow,
} from "@svc/contract";
import type { PairStatesBody } from "@svc/protocol";
import { pairKey } from "./figure-map.ts";
import { scopedFigures } from "./figures.ts";
import type { FleetView } from "./fleet-view.ts";
import { cellOf } from "./matrix.ts";
import type { PrometheusClient, RangeSeries } from "./prometheus-client.ts";
import { eq, familiesOf, sel } from "./promql.ts";
import { tierReason } from "./tiers.ts";

/** Window lengths in seconds. */
export const PAIR_WINDOWS: Readonly<Record<PairWindow, number>> = {
  "15m": 900,
  "1h": 3600,
  "6h": 21600,
  "24h": 86400,
};

/** Points per history chart (about). */
const POINTS = 120;

const PROTOCOLS: readonly FleetProtocol[] = ["tcp", "udp", "icmp", "pmtu"];

type Field = "rttSeconds" | "lossRatio" | "failRatio" | "pmtuBytes";

function historyQueries(prefix: string, p: FleetProtocol, m: string, rw: string): [Field, string][] {
  const fam = familiesOf(prefix, p);
  const out: [Field, string][] = [];
  if (fam.rtt)
    out.push([
      "rttSeconds",
      `histogram_quantile(0.95, sum by (le) (rate(${sel(`${fam.rtt}_bucket`, m)}[${rw}])))`,
    ]);
  if (fam.loss) out.push(["lossRatio", `max(${sel(fam.loss, m)})`]);
  if (fam.pmtuBytes) out.push(["pmtuBytes", `max(${sel(fam.pmtuBytes, m)})`]);
  else {
    const all = `sum(increase(${sel(fam.results, m)}[${rw}]))`;
    out.push([
      "failRatio",
      `(sum(increase(${sel(fam.results, 'result="fail"', m)}[${rw}])) or 0 * ${all}) / ${all}`,
    ]);
  }
  return out;
}

function mergeHistory(parts: [Field, RangeSeries[]][]): PairHistoryPoint[] {
  const byT = new Map<number, PairHistoryPoint>();
  for (const [field, series] of parts)
    for (const s of series)
      for (const [t, v] of s.points) {
        if (!Number.isFinite(v)) continue;
        let p = byT.get(t);
        if (!p) {
          p = { t };
          byT.set(t, p);
        }
        p[field] = v;
      }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

async function latestMtr(
  prom: PrometheusClient,
  prefix: string,
  m: string,
): Promise<FleetPair["mtr"] | undefined> {
  const family = sel(`${prefix}_mtr_hop_rtt_seconds`, m);
  const [values, times] = await Promise.all([prom.query(family), prom.query(`timestamp(${family})`)]);
  if (values.length === 0) return undefined;
  const hops: MtrHop[] = values
    .map((s) => ({ number: Number(s.metric.hop_number), ip: s.metric.hop_ip ?? "", rttSeconds: s.value }))
    .sort((a, b) => a.number - b.number);
  const at = Math.max(...times.map((s) => s.value));
  return { at: new Date(at * 1000).toISOString(), hops };
}

/** Reads and builds the pair view; `endS` is now in epoch seconds. */
export async function buildPair(
  prom: PrometheusClient,
  prefix: string,
  view: FleetView,
  source: string,
  destination: string,
  window: PairWindow,
  endS: number,
  /** the pair states the agents reported to the controller (now only) */
  pushed?: PairStatesBody,
): Promise<FleetPair> {
  const m = `${eq("source_node", source)},${eq("destination_node", destination)}`;
  const span = PAIR_WINDOWS[window];
  const step = Math.max(15, Math.round(span / POINTS));
  const rw = `${Math.max(60, 2 * step)}s`;
  const start = Math.floor(endS - span);
  const perProtocol = await Promise.all(
    PROTOCOLS.map(async (p): Promise<[FleetProtocol, PairProtocolHealth]> => {
      const queries = historyQueries(prefix, p, m, rw);
      const [figures, ...history] = await Promise.all([
        scopedFigures(prom, prefix, p, m, pushed),
        ...queries.map(([, q]) => prom.queryRange(q, start, Math.floor(endS), step)),
      ]);
      const cell = cellOf(view, p, figures, source, destination);
      const health: PairProtocolHealth = {
        tier: cell.tier,
        history: mergeHistory(queries.map(([f], i) => [f, history[i] ?? []])),
      };
      if (cell.failRatio !== undefined) health.failRatio = cell.failRatio;
      if (cell.lossRatio !== undefined) health.lossRatio = cell.lossRatio;
      if (cell.rttP95Seconds !== undefined) health.rttP95Seconds = cell.rttP95Seconds;
      if (cell.pmtu) health.pmtu = cell.pmtu;
      const reason =
        cell.tier === "unplanned" || cell.tier === "notrun"
          ? undefined
          : tierReason(p, figures.get(pairKey(source, destination)));
      if (reason) health.reason = reason;
      return [p, health];
    }),
  );
  const pair: FleetPair = {
    source,
    destination,
    protocols: Object.fromEntries(perProtocol) as Record<FleetProtocol, PairProtocolHealth>,
  };
  const mtr = await latestMtr(prom, prefix, m);
  if (mtr) pair.mtr = mtr;
  return pair;
}
