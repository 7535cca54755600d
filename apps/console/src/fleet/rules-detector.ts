/**
 * Whether the Prometheus the console reads holds the console's recording rules (recording-rules.ts): the marker
 * series of this rule version is there. Asked at most once a minute for live reads (an operator may load or drop
 * the rules at any time; the answer is used until then), and at the instant itself for a Time Machine read (the
 * rules may not have existed then).
 */
import type { PrometheusClient } from "./prometheus-client.ts";
import { markerName, nowMarkerName, RULES_VERSION } from "./recording-rules.ts";

/** Which of the rule groups Prometheus holds. */
export interface LoadedRules {
  /** the window group (with the marker): recorded reads */
  window: boolean;
  /** the `now` group too (else the latest-results reads stay raw) */
  now: boolean;
}

/** How long a live answer is used. */
export const RULES_RECHECK_MS = 60_000;

/** The detector. */
export class RulesDetector {
  #live: { at: number; answer: Promise<LoadedRules> } | undefined;

  constructor(
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  /** True when `prom` (at its evaluation time) holds the marker of this rule version. A failed read is false. */
  async loaded(prom: PrometheusClient, at?: number): Promise<boolean> {
    return (await this.groups(prom, at)).window;
  }

  /** Which groups `prom` holds (both false on a failed read). */
  groups(prom: PrometheusClient, at?: number): Promise<LoadedRules> {
    if (at !== undefined) return this.#ask(prom);
    const t = this.now();
    if (!this.#live || t - this.#live.at >= RULES_RECHECK_MS) this.#live = { at: t, answer: this.#ask(prom) };
    return this.#live.answer;
  }

  async #ask(prom: PrometheusClient): Promise<LoadedRules> {
    try {
      const [window, now] = await Promise.all([
        prom.query(`${markerName(this.prefix)}{version="${RULES_VERSION}"}`),
        prom.query(nowMarkerName(this.prefix)),
      ]);
      return { window: window.length > 0, now: window.length > 0 && now.length > 0 };
    } catch {
      return { window: false, now: false };
    }
  }
}
