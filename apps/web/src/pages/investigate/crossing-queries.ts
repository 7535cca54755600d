/**
 * The PromQL behind the derived threshold crossings: per scope, one aggregated series per signal (loss: udp and
 * icmp packet loss and the tcp failure share, the worst pair of the scope; RTT: the mean tcp connect time and udp
 * RTT of the worst pair). A target reads its external families. Label values are escaped for PromQL strings.
 */
import type { Series } from "./crossings.ts";
import { type Investigation, pairEnds } from "./params.ts";

/** A PromQL string literal body: backslash, quote and line breaks escaped. */
export function promString(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

type Query = Omit<Series, "points">;

const BY_PAIR = "source_node, destination_node";

/**
 * The label matchers of a scope: one list, or two alternatives whose results are joined with `or` (a node is a
 * source or a destination).
 */
function matcherSets(i: Investigation): string[][] {
  const eq = (k: string, v: string) => `${k}="${promString(v)}"`;
  switch (i.kind) {
    case "pair": {
      const [a, b] = pairEnds(i.scope) ?? ["", ""];
      return [[eq("source_node", a), eq("destination_node", b)]];
    }
    case "zone-pair": {
      const [a, b] = pairEnds(i.scope) ?? ["", ""];
      return [[eq("source_zone", a), eq("destination_zone", b)]];
    }
    case "node":
      return [[eq("source_node", i.scope)], [eq("destination_node", i.scope)]];
    case "target":
      return [[eq("target", i.scope)]];
    case "cluster":
      return [[]];
  }
}

/** `fn(selector)` for each matcher set, joined with `or`, under `max`. */
function worst(i: Investigation, fn: (sel: (metric: string, extra?: string) => string) => string): string {
  const parts = matcherSets(i).map((set) =>
    fn((metric, extra) => `${metric}{${[...set, ...(extra ? [extra] : [])].join(",")}}`),
  );
  return `max(${parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(" or ")})`;
}

const ratio = (by: string, num: string, den: string) =>
  `sum by (${by}) (rate(${num}[1m])) / sum by (${by}) (rate(${den}[1m]))`;

/** The queries of a scope; `targetName` is the target's name (its metrics' `target` label). */
export function crossingQueries(i: Investigation, targetName?: string): Query[] {
  if (i.kind === "target") {
    const t: Investigation = { ...i, scope: targetName ?? i.scope };
    return [
      {
        signal: "loss",
        name: "target packet loss",
        query: worst(t, (s) => s("svc_external_packet_loss_ratio")),
      },
      {
        signal: "loss",
        name: "target check failures",
        query: worst(t, (s) =>
          ratio(
            "source_node",
            s("svc_external_results_total", 'result="fail"'),
            s("svc_external_results_total"),
          ),
        ),
      },
      {
        signal: "rtt",
        name: "target check time",
        query: worst(t, (s) =>
          ratio(
            "source_node",
            s("svc_external_duration_seconds_sum"),
            s("svc_external_duration_seconds_count"),
          ),
        ),
      },
    ];
  }
  return [
    { signal: "loss", name: "udp packet loss", query: worst(i, (s) => s("svc_udp_packet_loss_ratio")) },
    { signal: "loss", name: "icmp packet loss", query: worst(i, (s) => s("svc_icmp_packet_loss_ratio")) },
    {
      signal: "loss",
      name: "tcp connect failures",
      query: worst(i, (s) =>
        ratio(BY_PAIR, s("svc_tcp_results_total", 'result="fail"'), s("svc_tcp_results_total")),
      ),
    },
    {
      signal: "rtt",
      name: "tcp connect time",
      query: worst(i, (s) =>
        ratio(
          BY_PAIR,
          s("svc_tcp_connect_duration_seconds_sum"),
          s("svc_tcp_connect_duration_seconds_count"),
        ),
      ),
    },
    {
      signal: "rtt",
      name: "udp RTT",
      query: worst(i, (s) => ratio(BY_PAIR, s("svc_udp_rtt_seconds_sum"), s("svc_udp_rtt_seconds_count"))),
    },
  ];
}

/** The range step for a window: about 240 points, at least 15 s. */
export function stepSeconds(i: Investigation): number {
  return Math.max(15, Math.ceil((Date.parse(i.to) - Date.parse(i.from)) / 1000 / 240));
}

/**
 * The range query of a window: steps laid back from `to`, so the last point is the window's end (the newest trouble
 * is never a step short); the first may fall before `from` and is dropped by the caller (inWindow).
 */
export function rangeOf(i: Investigation): { start: string; end: string; stepSeconds: number } {
  const step = stepSeconds(i);
  const to = Date.parse(i.to);
  const n = Math.ceil((to - Date.parse(i.from)) / 1000 / step);
  return { start: new Date(to - n * step * 1000).toISOString(), end: i.to, stepSeconds: step };
}
