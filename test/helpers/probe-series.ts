/**
 * Test helper: agents' probe result counters (`svc_<protocol>_results_total`, all results summed) per
 * `protocol source->destination`, sampled over time, and how long each series went without growing: what the
 * fault drills and the failover test call "no gap in a probe series".
 */
import { scrape } from "./metrics-text.ts";

export const SERIES_PROTOCOLS = ["tcp", "udp"] as const;

/** One agent as the sampler reads it. */
export interface SampledAgent {
  name: string;
  metricsUrl: string;
}

/** Result counters of one agent's /metrics, keyed `protocol source->destination`. */
export async function resultCounters(metricsUrl: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const s of await scrape(metricsUrl)) {
    const p = SERIES_PROTOCOLS.find((x) => s.name === `svc_${x}_results_total`);
    if (!p) continue;
    const key = `${p} ${s.labels.source_node}->${s.labels.destination_node}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** Every `protocol source->destination` key of a full mesh of `names`. */
export function meshKeys(names: readonly string[]): string[] {
  return names
    .flatMap((s) =>
      names.filter((d) => d !== s).flatMap((d) => SERIES_PROTOCOLS.map((p) => `${p} ${s}->${d}`)),
    )
    .sort();
}

export interface Sample {
  t: number;
  agent: string;
  values: Map<string, number>;
}

/** Samples every agent's counters every `everyMs` until stop() (a failed scrape is a sample with a NaN value). */
export function sampleSeries(
  agents: readonly SampledAgent[],
  everyMs = 500,
): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const t = Date.now();
      await Promise.all(
        agents.map(async (a) => {
          try {
            samples.push({ t, agent: a.name, values: await resultCounters(a.metricsUrl) });
          } catch (e) {
            samples.push({
              t,
              agent: a.name,
              values: new Map([[`scrape failed: ${String(e)}`, Number.NaN]]),
            });
          }
        }),
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    stop: async () => {
      sampling = false;
      await loop;
    },
  };
}

/**
 * The longest time, ms, series `key` of `agent` went without growing over `samples` (from the first sample to the
 * last); throws when a scrape failed, the series vanished or a counter went back.
 */
export function longestFlat(samples: readonly Sample[], agent: string, key: string): number {
  const mine = samples.filter((s) => s.agent === agent);
  for (const s of mine)
    if ([...s.values.values()].some(Number.isNaN)) throw new Error([...s.values.keys()].join());
  let lastGrowth = mine[0]?.t ?? 0;
  let last = mine[0]?.values.get(key) ?? 0;
  let flat = 0;
  for (const s of mine) {
    const v = s.values.get(key);
    if (v === undefined) throw new Error(`${key}: series gone at ${new Date(s.t).toISOString()}`);
    if (v < last) throw new Error(`${key}: counter went back from ${last} to ${v}`);
    if (v > last) {
      flat = Math.max(flat, s.t - lastGrowth);
      lastGrowth = s.t;
      last = v;
    }
  }
  return Math.max(flat, (mine.at(-1)?.t ?? 0) - lastGrowth);
}
