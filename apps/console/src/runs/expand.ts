/**
 * Expands a run spec (spec §4.3, §8.1): explicit pairs plus every source x destination (never a node to itself),
 * deduplicated in order; 422 for no pairs, more than RUN_PAIRS_MAX, a duration outside the range. The cadence of a
 * duration run is duration/500 floored at 5 s, stretched only for mtr (90 s) and pmtu (15 s); samples per pair are
 * what fits in the duration at that cadence (at least 1, at most 500). Nothing is refused for cadence.
 */
import {
  RUN_DURATION_MAX_S,
  RUN_DURATION_MIN_S,
  RUN_PAIRS_MAX,
  RUN_SAMPLES_MAX,
  type RunSpec,
  type StoredRunSpec,
} from "@svc/contract";
import { UnprocessableError } from "../errors.ts";

const NS_PER_MS = 1_000_000;
/** Cadence floor of every duration run. */
export const CADENCE_FLOOR_MS = 5_000;
/** One-round floors of the types that stretch their cadence. */
export const ROUND_FLOOR_MS: Readonly<Record<string, number>> = { mtr: 90_000, pmtu: 15_000 };

/** The planned cadence of a duration run of `durationMs` for `type`. */
export function cadence(type: string, durationMs: number): { intervalMs: number; samples: number } {
  const intervalMs = Math.max(durationMs / RUN_SAMPLES_MAX, CADENCE_FLOOR_MS, ROUND_FLOOR_MS[type] ?? 0);
  const samples = Math.min(RUN_SAMPLES_MAX, Math.max(1, Math.ceil(durationMs / intervalMs - 1e-9)));
  return { intervalMs: Math.round(intervalMs), samples };
}

/** The stored form of `spec`, or UnprocessableError. */
export function expandRun(spec: RunSpec): StoredRunSpec {
  const seen = new Set<string>();
  const pairs: { source: string; destination: string }[] = [];
  const add = (source: string, destination: string) => {
    if (source === destination) return;
    const k = JSON.stringify([source, destination]);
    if (seen.has(k)) return;
    seen.add(k);
    pairs.push({ source, destination });
  };
  for (const p of spec.pairs) add(p.source, p.destination);
  for (const s of spec.sources) {
    for (const d of spec.destinations) {
      add(s, d);
      if (pairs.length > RUN_PAIRS_MAX) break;
    }
    if (pairs.length > RUN_PAIRS_MAX) break;
  }
  if (pairs.length === 0)
    throw new UnprocessableError("no pairs to check (a node is never checked against itself)");
  if (pairs.length > RUN_PAIRS_MAX) throw new UnprocessableError(`too many pairs: at most ${RUN_PAIRS_MAX}`);
  const d = spec.durationSeconds;
  if (d === 0) return { type: spec.type, pairs, durationSeconds: 0 };
  if (d < RUN_DURATION_MIN_S || d > RUN_DURATION_MAX_S)
    throw new UnprocessableError(
      `run duration out of range: 0 (instant) or ${RUN_DURATION_MIN_S}-${RUN_DURATION_MAX_S} seconds`,
    );
  const c = cadence(spec.type, d * 1000);
  return {
    type: spec.type,
    pairs,
    durationSeconds: d,
    plannedSampleIntervalNs: c.intervalMs * NS_PER_MS,
    plannedSamplesPerPair: c.samples,
  };
}
