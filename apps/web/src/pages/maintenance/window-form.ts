/**
 * The maintenance window form's pure parts: the scope's fields, the body the API takes (fields the scope does not
 * use sent empty, times as ISO instants from the browser's local time), and whether a window is open at an instant.
 */
import type { MaintenanceInput, MaintenanceWindow } from "@svc/contract";

/** What the form holds: every field as typed; times as `<input type="datetime-local">` text. */
export interface WindowDraft {
  scope: MaintenanceInput["scope"];
  node: string;
  source: string;
  destination: string;
  target: string;
  start: string;
  end: string;
  reason: string;
}

/** The fields each scope uses. */
export const SCOPE_FIELDS: Record<
  MaintenanceInput["scope"],
  readonly ("node" | "source" | "destination" | "target")[]
> = {
  fleet: [],
  node: ["node"],
  pair: ["source", "destination"],
  target: ["target"],
};

/** The API body of a draft, or what is wrong with it. */
export function windowBody(
  d: WindowDraft,
): { ok: true; body: MaintenanceInput } | { ok: false; error: string } {
  const start = new Date(d.start).getTime();
  const end = new Date(d.end).getTime();
  if (!Number.isFinite(start) || !Number.isFinite(end))
    return { ok: false, error: "Choose a start and an end." };
  if (end <= start) return { ok: false, error: "The window must end after it starts." };
  const used = SCOPE_FIELDS[d.scope];
  const pick = (k: "node" | "source" | "destination" | "target") => (used.includes(k) ? d[k].trim() : "");
  for (const k of used)
    if (d[k].trim() === "") return { ok: false, error: `Fill in the ${k} of this scope.` };
  return {
    ok: true,
    body: {
      scope: d.scope,
      node: pick("node"),
      source: pick("source"),
      destination: pick("destination"),
      target: pick("target"),
      startAt: new Date(start).toISOString(),
      endAt: new Date(end).toISOString(),
      reason: d.reason,
    },
  };
}

/** True when `w` covers `now` (epoch ms): [startAt, endAt). */
export function isActive(w: Pick<MaintenanceWindow, "startAt" | "endAt">, now: number): boolean {
  return Date.parse(w.startAt) <= now && now < Date.parse(w.endAt);
}

/** What a window covers, in words. */
export function scopeWords(
  w: Pick<MaintenanceWindow, "scope" | "node" | "source" | "destination" | "target">,
): string {
  switch (w.scope) {
    case "fleet":
      return "the whole fleet";
    case "node":
      return `node ${w.node}`;
    case "pair":
      return `pair ${w.source} -> ${w.destination}`;
    case "target":
      return `target ${w.target}`;
  }
}
