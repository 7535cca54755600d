/**
 * The fleet-wide reads of the matrix as Prometheus recording rules (docs/decisions.md "Fleet tiers"): the same
 * PromQL the console would run on every refresh (promql.ts), evaluated by Prometheus on a cadence instead, so a
 * refresh reads a handful of small recorded series (a count per source, and the exceptions) whatever the size of
 * the fleet. `fleetQueries` gives the expression of each read, raw or recorded; the console uses the recorded
 * ones when Prometheus holds the rules' marker series (fleet-service.ts), the raw ones otherwise.
 * The lab's Prometheus loads `recordingRulesYaml`; deploy/prometheus/svc-recording-rules.yml is the same text for
 * operators (scripts/gen-rules.ts writes it; a test keeps it current).
 */
import type { FleetProtocol } from "@svc/contract";
import {
  failedWithin,
  failingNow,
  failRatio,
  familiesOf,
  latest,
  loss,
  presenceCounts,
  recoveredNow,
  roseWithin,
  SD,
  slowPairs,
} from "./promql.ts";

/** Version of the rule set; the marker series carries it, and a console only trusts rules of its own version. */
export const RULES_VERSION = "1";

/** The fleet-wide reads of one protocol (PromQL text), each answered by source_node (and destination_node). */
export interface FleetReads {
  /** measured destinations per source (value: count) */
  presentCounts: string;
  /** tcp/udp/icmp: pairs with a 5m fail ratio > 0 (value: the ratio) */
  failRatioNonzero?: string;
  /** udp/icmp: pairs whose latest loss is > 0 */
  lossNonzero?: string;
  /** pairs whose RTT p95 is above the degraded bound */
  slow?: string;
  /** pairs whose latest results all failed / all succeeded after failures in 5m */
  failingNow?: string;
  recoveredNow?: string;
  /** pmtu: pairs crossing below the probed size (value: bytes / probe bytes) */
  reducedBytes?: string;
  reducedProbe?: string;
  /** pmtu: pairs probed where nothing crossed on the latest run */
  nothingCrossed?: string;
  /** pmtu: pairs with a black hole within 15m, and those of them whose success counter rose too */
  fail15m?: string;
  mixed15m?: string;
  /** pmtu: probe size per source (max and min) */
  probeMax?: string;
  probeMin?: string;
}

/** One recording rule. */
interface Rule {
  record: string;
  expr: string;
}

/** The raw PromQL of each fleet-wide read. */
export function rawReads(prefix: string, protocol: FleetProtocol): FleetReads {
  const fam = familiesOf(prefix, protocol);
  if (protocol === "pmtu") {
    const bytes = fam.pmtuBytes ?? "";
    const probe = fam.probeBytes ?? "";
    return {
      presentCounts: presenceCounts(probe),
      reducedBytes: `${latest(bytes)} < ${latest(probe)}`,
      reducedProbe: `${latest(probe)} > ${latest(bytes)}`,
      nothingCrossed: `group by (${SD}) (${probe}) unless group by (${SD}) (${bytes})`,
      fail15m: failedWithin(fam.results, "", "15m"),
      mixed15m: `(${roseWithin(fam.results, "success", "", "15m")}) and on (${SD}) (${failedWithin(fam.results, "", "15m")})`,
      probeMax: `max by (source_node) (${probe})`,
      probeMin: `min by (source_node) (${probe})`,
    };
  }
  const reads: FleetReads = {
    presentCounts: presenceCounts(fam.results),
    failRatioNonzero: `(${failRatio(fam.results)}) > 0`,
    failingNow: failingNow(fam.results),
    recoveredNow: recoveredNow(fam.results),
  };
  if (fam.loss) reads.lossNonzero = `${loss(fam.loss)} > 0`;
  if (fam.rtt) reads.slow = slowPairs(fam.rtt);
  return reads;
}

/** Name of the recorded series of one read: `<prefix>:<protocol>_<read>`. */
const recordName = (prefix: string, protocol: FleetProtocol, read: keyof FleetReads): string =>
  `${prefix}:${protocol}_${read.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;

/** Name of the marker series the rules record (value 1, label `version`). */
export const markerName = (prefix: string): string => `${prefix}:fleet_rules_info`;

/** Name of the marker series the `now` group records (present only where that group is loaded). */
export const nowMarkerName = (prefix: string): string => `${prefix}:fleet_rules_now_info`;

/**
 * The recorded series of each fleet-wide read (what the console queries when the rules are loaded); with `now`
 * false (rules loaded without their `now` group), the latest-results reads stay raw PromQL.
 */
export function recordedReads(prefix: string, protocol: FleetProtocol, now = true): FleetReads {
  const raw = rawReads(prefix, protocol);
  const out: FleetReads = { presentCounts: recordName(prefix, protocol, "presentCounts") };
  for (const k of Object.keys(raw) as (keyof FleetReads)[]) {
    const v = now || !NOW_READS.has(k) ? recordName(prefix, protocol, k) : raw[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const PROTOCOLS: readonly FleetProtocol[] = ["tcp", "udp", "icmp", "pmtu"];

/** The reads a red cell waits on: evaluated every scrape (the latest results, and the latest loss gauge). */
const NOW_READS: ReadonlySet<keyof FleetReads> = new Set(["failingNow", "recoveredNow", "lossNonzero"]);

/**
 * The rule groups: `now` (the latest-results and latest-loss reads, evaluated every `fastSeconds`, the scrape
 * interval: a red cell waits at most one evaluation on top of the scrape) and `window` (the 5m/15m windows and
 * presence, every `slowSeconds`). The `now` group serves agents older than the pair state (pair-state.ts): a fleet
 * whose agents all export it leaves the group out (`legacyNow` false), and its evaluation over every pair's
 * counters (53 s per 10 s at 500 nodes in full mesh) with it.
 */
export function recordingRules(
  prefix: string,
  fastSeconds: number,
  slowSeconds: number,
  legacyNow = true,
): {
  name: string;
  interval: string;
  rules: Rule[];
}[] {
  const now: Rule[] = [{ record: nowMarkerName(prefix), expr: "vector(1)" }];
  const window: Rule[] = [
    { record: markerName(prefix), expr: `label_replace(vector(1), "version", "${RULES_VERSION}", "", "")` },
  ];
  for (const p of PROTOCOLS) {
    const raw = rawReads(prefix, p);
    for (const k of Object.keys(raw) as (keyof FleetReads)[]) {
      const expr = raw[k];
      if (expr === undefined) continue;
      const rule = { record: recordName(prefix, p, k), expr };
      (NOW_READS.has(k) ? now : window).push(rule);
    }
  }
  return [
    ...(legacyNow ? [{ name: `${prefix}-fleet-now`, interval: `${fastSeconds}s`, rules: now }] : []),
    { name: `${prefix}-fleet-window`, interval: `${slowSeconds}s`, rules: window },
  ];
}

/** The rule file (Prometheus YAML; every string JSON-quoted, which YAML reads as is). */
export function recordingRulesYaml(
  prefix = "svc",
  fastSeconds = 5,
  slowSeconds = 15,
  legacyNow = true,
): string {
  const lines = [
    "# svc console recording rules: the matrix's fleet-wide reads, evaluated by Prometheus (docs/decisions.md).",
    "# Generated by scripts/gen-rules.ts from apps/console/src/fleet/recording-rules.ts; do not edit by hand.",
    "groups:",
  ];
  for (const g of recordingRules(prefix, fastSeconds, slowSeconds, legacyNow)) {
    lines.push(`  - name: ${JSON.stringify(g.name)}`, `    interval: ${g.interval}`, "    rules:");
    for (const r of g.rules)
      lines.push(`      - record: ${JSON.stringify(r.record)}`, `        expr: ${JSON.stringify(r.expr)}`);
  }
  return `${lines.join("\n")}\n`;
}
