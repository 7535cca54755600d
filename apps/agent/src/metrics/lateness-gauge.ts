import type { LatenessSummary } from "../scheduler/lateness.ts";
import { GaugeFamily } from "./store/gauge.ts";
import type { MetricRegistry } from "./store/registry.ts";

/**
 * Exposes the scheduler's probe start lateness (actual minus planned start, over the most recent samples) as
 * `<prefix>_probe_start_lateness_p50_seconds` and `..._p99_seconds`: an operator sees an overloaded agent, and
 * the footprint benchmark reads them. (Plain gauges: a `quantile` label is reserved for summaries.)
 */
export function registerLatenessGauges(
  registry: MetricRegistry,
  prefix: string,
  summary: () => LatenessSummary,
): void {
  for (const [p, pick] of [
    ["p50", (s: LatenessSummary) => s.p50],
    ["p99", (s: LatenessSummary) => s.p99],
  ] as const) {
    registry.register(
      new GaugeFamily({
        name: `${prefix}_probe_start_lateness_${p}_seconds`,
        help: `Probe start lateness (actual minus planned start), ${p} over the most recent probes.`,
        collect(gauge) {
          const s = summary();
          if (s.count > 0) gauge.set({}, pick(s) / 1000);
        },
      }),
    );
  }
}
