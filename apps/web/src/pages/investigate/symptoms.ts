/**
 * Which rows of the ranked list are the investigated scope's own symptoms: its own probes' results (the checks,
 * traces and diagnostics the controller reported for it, the runs of its pairs) and its firing alerts. They keep
 * their §4.5 score and rank (causes.ts is untouched); the page marks them, so an operator reads past them to the
 * rows that could be causes. The suspects above the list say where the fault is. DOM-free.
 */

import type { Investigation } from "./params.ts";
import { pairEnds } from "./params.ts";
import type { TimelineEntry } from "./timeline.ts";

/** Fleet event types that report a probe of the scope (a symptom), not a change that could cause one. */
const PROBE_EVENTS = new Set(["CheckObserved", "MTRTriggered", "MTRCompleted", "DiagnosticProgress"]);

/** Whether an event scope (`node` or `a->b`) lies inside the investigation's scope. */
function inside(i: Investigation, scope: string): boolean {
  const ends = pairEnds(scope);
  if (i.kind === "pair") {
    const mine = pairEnds(i.scope);
    return ends !== undefined && mine !== undefined && ends[0] === mine[0] && ends[1] === mine[1];
  }
  if (i.kind === "node") return ends ? ends.includes(i.scope) : scope === i.scope;
  return i.kind === "cluster" || i.kind === "zone-pair";
}

/** Whether `row` is a symptom of the investigated scope rather than a candidate cause. */
export function isSymptom(row: TimelineEntry, i: Investigation): boolean {
  if (row.kind === "firing-alert" || row.kind === "threshold-crossing") return true;
  if (row.kind === "diagnostic-run") return i.kind === "pair" || i.kind === "node";
  if (row.kind !== "fleet-event") return false;
  const [type = "", scope = ""] = row.detail.split(" · ");
  return PROBE_EVENTS.has(type) && inside(i, scope);
}
