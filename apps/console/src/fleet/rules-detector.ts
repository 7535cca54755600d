/**
 * Whether the Prometheus the console reads holds the console's recording rules (recording-rules.ts): the marker
 * series of this rule version is there. Asked at most once a minute for live reads (an operator may load or drop
 * the rules at any time; the answer is used until then), and at the instant itself for a Time Machine read (the
 * rules may not have existed then).
 */
import type { PrometheusClient } from "./prometheus-client.ts";
import { markerName, RULES_VERSION } from "./recording-rules.ts";

/** How long a live answer is used. */
export const RULES_RECHECK_MS = 60_000;

/** The detector. */
export class RulesDetector {
  #live: { at: number; answer: Promise<boolean> } | undefined;

  constructor(
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  /** True when `prom` (at its evaluation time) holds the marker of this rule version. A failed read is false. */
  async loaded(prom: PrometheusClient, at?: number): Promise<boolean> {
    if (at !== undefined) return this.#ask(prom);
    const t = this.now();
    if (!this.#live || t - this.#live.at >= RULES_RECHECK_MS) this.#live = { at: t, answer: this.#ask(prom) };
    return this.#live.answer;
  }

  async #ask(prom: PrometheusClient): Promise<boolean> {
    try {
      const rows = await prom.query(`${markerName(this.prefix)}{version="${RULES_VERSION}"}`);
      return rows.length > 0;
    } catch {
      return false;
    }
  }
}
