/**
 * The PromQL the fleet API runs, one aggregated query per figure (never one per pair). Every query aggregates
 * `by (source_node, destination_node)`; `sel` is extra label matchers (`source_node="a"`) or "".
 * Windows: failure ratios over 5m (spec §4.4 health), PMTU black holes over 5m and 15m (Recovering).
 */
import type { FleetProtocol } from "@svc/contract";

/** The label pair every peer figure is aggregated by. */
export const SD = "source_node, destination_node";

/** RTT p95 above this is degraded; it is an agent histogram bucket bound, so the test needs 2 series per pair. */
export const RTT_DEGRADED_SECONDS = 0.1;

/** Metric family names of one protocol under `prefix`. */
export interface Families {
  results: string;
  loss?: string;
  rtt?: string;
  pmtuBytes?: string;
  probeBytes?: string;
}

/** The families each matrix protocol is computed from (reference/metrics.md). */
export function familiesOf(prefix: string, protocol: FleetProtocol): Families {
  const n = (f: string) => `${prefix}_${f}`;
  switch (protocol) {
    case "tcp":
      return { results: n("tcp_results_total"), rtt: n("tcp_connect_duration_seconds") };
    case "udp":
      return { results: n("udp_results_total"), loss: n("udp_packet_loss_ratio"), rtt: n("udp_rtt_seconds") };
    case "icmp":
      return {
        results: n("icmp_results_total"),
        loss: n("icmp_packet_loss_ratio"),
        rtt: n("icmp_rtt_seconds"),
      };
    case "pmtu":
      return {
        results: n("pmtu_results_total"),
        pmtuBytes: n("pmtu_bytes"),
        probeBytes: n("pmtu_probe_bytes"),
      };
  }
}

/** `name{matchers}` with the optional extra matchers. */
export function sel(name: string, ...matchers: string[]): string {
  const m = matchers.filter((x) => x !== "");
  return m.length === 0 ? name : `${name}{${m.join(",")}}`;
}

/** A regex matcher of exactly these label values (regex-escaped, then quoted as a PromQL string). */
export function anyOf(label: string, values: readonly string[]): string {
  const alternatives = values.map((v) => v.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&"));
  return `${label}=~${JSON.stringify(alternatives.join("|"))}`;
}

/** An exact label matcher. */
export function eq(label: string, value: string): string {
  return `${label}=${JSON.stringify(value)}`;
}

/** Pairs that have a series of `family` now (presence). */
export const presence = (family: string, m = "") => `group by (${SD}) (${sel(family, m)})`;

/** Number of destinations with a series of `family`, per source. */
export const presenceCounts = (family: string) => `count by (source_node) (group by (${SD}) (${family}))`;

/** Fail share of results over `window`; pairs that never failed have no fail series and are left out. */
export const failRatio = (results: string, m = "", window = "5m") =>
  `sum by (${SD}) (increase(${sel(results, 'result="fail"', m)}[${window}])) / sum by (${SD}) (increase(${sel(results, m)}[${window}]))`;

/** Pairs whose fail counter increased within `window` (value: the increase). */
export const failedWithin = (results: string, m: string, window: string) =>
  `sum by (${SD}) (increase(${sel(results, 'result="fail"', m)}[${window}])) > 0`;

/** The window `irate` looks back over for the last two samples of a counter (a scrape interval is far shorter). */
export const RECENT_RANGE = "1m";

const recentRise = (results: string, result: "fail" | "success", m: string) =>
  `(sum by (${SD}) (irate(${sel(results, `result="${result}"`, m)}[${RECENT_RANGE}])) > 0)`;

/**
 * Pairs whose latest results were all failures: between the last two samples the fail counter rose and the success
 * counter did not (irate reads exactly those two samples and handles a counter reset); or, for a pair too new to
 * have two samples, whose counters since its agent started hold failures only.
 */
export const failingNow = (results: string, m = "") =>
  `(${recentRise(results, "fail", m)} unless on (${SD}) ${recentRise(results, "success", m)}) or ` +
  `((sum by (${SD}) (${sel(results, 'result="fail"', m)}) > 0) unless on (${SD}) ` +
  `(sum by (${SD}) (${sel(results, 'result="success"', m)}) > 0))`;

/**
 * Pairs that failed within 5m but whose latest results all succeeded (the cell leaves `failing` at once); only
 * pairs with failures in the window, so the answer stays small.
 */
export const recoveredNow = (results: string, m = "") =>
  `(${recentRise(results, "success", m)} unless on (${SD}) ${recentRise(results, "fail", m)}) and on (${SD}) ` +
  `(sum by (${SD}) (increase(${sel(results, 'result="fail"', m)}[5m])) > 0)`;

/** Pairs whose `result` counter rose within `window` (value: the increase). */
export const roseWithin = (results: string, result: "fail" | "success", m: string, window: string) =>
  `sum by (${SD}) (increase(${sel(results, `result="${result}"`, m)}[${window}])) > 0`;

/**
 * When each pair's `result` counter last rose within 15m (epoch seconds, to the second): `idelta` is positive
 * from the sample that rose until the next sample, and the subquery looks at every second. Used only for the few
 * pairs whose counters both rose in the window, to tell which verdict came last.
 */
export const lastRise = (results: string, result: "fail" | "success", m: string) =>
  `max_over_time((timestamp(sum by (${SD}) (idelta(${sel(results, `result="${result}"`, m)}[1m])) > 0))[15m:1s])`;

/** Latest loss ratio gauge. */
export const loss = (family: string, m = "") => `max by (${SD}) (${sel(family, m)})`;

/** RTT p95 from the histogram over 5m. */
export const rttP95 = (hist: string, m = "") =>
  `histogram_quantile(0.95, sum by (${SD}, le) (rate(${sel(`${hist}_bucket`, m)}[5m])))`;

/** Pairs whose p95 is above RTT_DEGRADED_SECONDS: more than 5% of observations above that bucket bound. */
export const slowPairs = (hist: string) =>
  `(1 - sum by (${SD}) (rate(${sel(`${hist}_bucket`, `le="${RTT_DEGRADED_SECONDS}"`)}[5m])) / sum by (${SD}) (rate(${hist}_count[5m]))) > 0.05`;

/** Latest gauge value per pair. */
export const latest = (family: string, m = "") => `max by (${SD}) (${sel(family, m)})`;
