/**
 * Likely causes, exactly as spec §4.5:
 * 1. onset = the earliest non-info threshold crossing in the window; without one nothing is ranked;
 * 2. candidates = rows within the 5 minutes before the onset (delta 0 to 300 s, both ends included);
 * 3. weights: path change 3, k8s event 3, fleet event 2, audit row 2, maintenance window 1, all else 0;
 * 4. excluded audit rows (marked `excluded` by audit-rows.ts) are never ranked;
 * 5. score = weight x (1 - delta / window); label `{delta}s before the onset · weight {weight}`.
 * Delta is counted in whole seconds (rounded), and the score uses the same figure the label shows. Rows of weight 0
 * (annotations, runs, firing alerts) are candidates too and rank last with score 0; threshold crossings are not
 * candidates (they are the symptom the onset is read from). Order: score, then the nearer row, then the heavier kind.
 */
import type { TimelineEntry, TimelineKind } from "./timeline.ts";

/** The candidate window before the onset, seconds. */
export const CANDIDATE_WINDOW_S = 300;

/** Weight of each row kind (§4.5 point 3). */
export const WEIGHTS: Readonly<Record<TimelineKind, number>> = {
  "mtr-path-change": 3,
  "k8s-event": 3,
  "fleet-event": 2,
  "audit-row": 2,
  "maintenance-window": 1,
  annotation: 0,
  "diagnostic-run": 0,
  "threshold-crossing": 0,
  "firing-alert": 0,
};

export interface RankedCause {
  entry: TimelineEntry;
  weight: number;
  /** whole seconds before the onset */
  deltaSeconds: number;
  score: number;
  label: string;
}

export interface Ranking {
  /** ISO 8601 onset, or null when the window holds no non-info threshold crossing */
  onset: string | null;
  causes: RankedCause[];
}

/** The onset: the earliest non-info threshold crossing among `rows`, or null. */
export function onsetOf(rows: readonly TimelineEntry[]): string | null {
  let best: { t: number; at: string } | null = null;
  for (const r of rows) {
    if (r.kind !== "threshold-crossing" || r.severity === "info") continue;
    const t = Date.parse(r.timestamp);
    if (Number.isNaN(t)) continue;
    if (!best || t < best.t) best = { t, at: r.timestamp };
  }
  return best ? new Date(best.t).toISOString() : null;
}

/** The label of a ranked row. */
export function causeLabel(deltaSeconds: number, weight: number): string {
  return `${deltaSeconds}s before the onset · weight ${weight}`;
}

/** Ranks `rows` (the whole timeline) as §4.5 says. */
export function rankCauses(rows: readonly TimelineEntry[]): Ranking {
  const onset = onsetOf(rows);
  if (onset === null) return { onset, causes: [] };
  const onsetMs = Date.parse(onset);
  const causes: RankedCause[] = [];
  for (const entry of rows) {
    if (entry.excluded || entry.kind === "threshold-crossing") continue;
    const weight = Object.hasOwn(WEIGHTS, entry.kind) ? WEIGHTS[entry.kind] : 0;
    const t = Date.parse(entry.timestamp);
    if (Number.isNaN(t)) continue;
    const deltaSeconds = Math.round((onsetMs - t) / 1000);
    if (deltaSeconds < 0 || deltaSeconds > CANDIDATE_WINDOW_S) continue;
    const score = weight * (1 - deltaSeconds / CANDIDATE_WINDOW_S);
    causes.push({ entry, weight, deltaSeconds, score, label: causeLabel(deltaSeconds, weight) });
  }
  causes.sort(
    (a, b) =>
      b.score - a.score ||
      a.deltaSeconds - b.deltaSeconds ||
      b.weight - a.weight ||
      a.entry.title.localeCompare(b.entry.title),
  );
  return { onset, causes };
}
