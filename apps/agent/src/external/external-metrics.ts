import { familyMakers } from "../metrics/families.ts";
import type { CounterFamily } from "../metrics/store/counter.ts";
import type { GaugeFamily } from "../metrics/store/gauge.ts";
import type { HistogramFamily } from "../metrics/store/histogram.ts";
import type { MetricRegistry } from "../metrics/store/registry.ts";
import type { AssignedSpec } from "./assigned-spec.ts";
import type { ExternalOutcome } from "./run-check.ts";
import type { DenyReason } from "./target-policy.ts";

/** The external label set (reference/metrics.md); `target` is the target's name, never its address. */
export const EXTERNAL_LABELS = ["source_node", "source_zone", "target", "target_kind", "check_type"] as const;
type ExternalLabels = Record<(typeof EXTERNAL_LABELS)[number], string>;

/** What a series is labelled by: a spec, or a one-shot diagnostic's destination and probe type. */
export interface SeriesSubject {
  target: { name: string; kind: string };
  checkType: string;
}

/** Where the agent runs: its node and (possibly late-resolved) zone. */
export interface ExternalSource {
  node: string;
  zone: () => string;
}

/**
 * The svc_external_* families on one registry, and the bookkeeping to delete a spec's series when the last spec
 * with that label set goes (two specs may share a label set: same target name and check type).
 */
export class ExternalMetrics {
  readonly #duration: HistogramFamily;
  readonly #rtt: HistogramFamily;
  readonly #loss: GaugeFamily;
  readonly #results: CounterFamily;
  readonly #denied: CounterFamily;
  readonly #source: ExternalSource;
  /** label-set JSON -> every label set actually written under it (zone may change over time) */
  readonly #written = new Map<string, Map<string, ExternalLabels>>();

  constructor(prefix: string, registry: MetricRegistry, source: ExternalSource) {
    const labelNames = [...EXTERNAL_LABELS];
    this.#source = source;
    const { hist, gauge, counter } = familyMakers(prefix, registry);
    this.#duration = hist(
      "external_duration_seconds",
      "Duration of a continuous external check.",
      labelNames,
    );
    this.#rtt = hist(
      "external_rtt_seconds",
      "External check round-trip time (icmp echo, tcp connect).",
      labelNames,
    );
    this.#loss = gauge(
      "external_packet_loss_ratio",
      "Share of icmp echoes to an external target without a reply, last run.",
      labelNames,
    );
    this.#results = counter("external_results_total", "Continuous external check results.", [
      ...labelNames,
      "result",
    ]);
    this.#denied = counter(
      "external_denied_total",
      "External check runs refused by the agent (cidr, resolve, disabled).",
      [...labelNames, "reason"],
    );
  }

  /** Identity of a spec's series (independent of the zone). */
  seriesKey(spec: SeriesSubject): string {
    return JSON.stringify([spec.target.name, spec.target.kind, spec.checkType]);
  }

  recordOutcome(spec: AssignedSpec, o: ExternalOutcome): void {
    const l = this.#labels(spec);
    this.#duration.observe(l, o.durationMs / 1000);
    for (const rtt of o.rttsMs) this.#rtt.observe(l, rtt / 1000);
    if (o.lossRatio !== undefined) this.#loss.set(l, o.lossRatio);
    this.#results.inc({ ...l, result: o.ok ? "success" : "fail" });
  }

  recordDenied(spec: SeriesSubject, reason: DenyReason): void {
    this.#denied.inc({ ...this.#labels(spec), reason });
  }

  /** Deletes every series written under `seriesKey`. */
  remove(seriesKey: string): void {
    const sets = this.#written.get(seriesKey);
    if (!sets) return;
    this.#written.delete(seriesKey);
    for (const l of sets.values()) {
      this.#duration.remove(l);
      this.#rtt.remove(l);
      this.#loss.remove(l);
      for (const result of ["success", "fail"]) this.#results.remove({ ...l, result });
      for (const reason of ["disabled", "resolve", "cidr"]) this.#denied.remove({ ...l, reason });
    }
  }

  #labels(spec: SeriesSubject): ExternalLabels {
    const l: ExternalLabels = {
      source_node: this.#source.node,
      source_zone: this.#source.zone(),
      target: spec.target.name,
      target_kind: spec.target.kind,
      check_type: spec.checkType,
    };
    const key = this.seriesKey(spec);
    let sets = this.#written.get(key);
    if (!sets) {
      sets = new Map();
      this.#written.set(key, sets);
    }
    sets.set(JSON.stringify(l), l);
    return l;
  }
}
