/**
 * The kinds of an investigation timeline row (spec §2.10) and the badge word each row carries. The spec names the
 * nine kinds (fleet event, k8s event, audit row, annotation, maintenance window, diagnostic run, MTR path change,
 * derived threshold crossing, firing alert); the wire values and the short display words are the console's choice
 * (docs/decisions.md, "Incidents"). A pinned finding (incidents.ts) is labelled with the badge word of its kind.
 */

/** Timeline row kinds, wire values, in the order §2.10 lists them. */
export const TIMELINE_KINDS = [
  "fleet-event",
  "k8s-event",
  "audit-row",
  "annotation",
  "maintenance-window",
  "diagnostic-run",
  "mtr-path-change",
  "threshold-crossing",
  "firing-alert",
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** The badge word a row of each kind shows (short: it sits in a narrow column). */
export const TIMELINE_BADGES: Readonly<Record<TimelineKind, string>> = {
  "fleet-event": "Fleet event",
  "k8s-event": "K8s event",
  "audit-row": "Audit",
  annotation: "Annotation",
  "maintenance-window": "Maintenance",
  "diagnostic-run": "Run",
  "mtr-path-change": "Path change",
  "threshold-crossing": "Threshold",
  "firing-alert": "Alert",
};

/** Kinds that cannot be pinned to an incident (spec §2.9): maintenance windows, threshold crossings, firing alerts. */
export const UNPINNABLE_KINDS: readonly TimelineKind[] = [
  "maintenance-window",
  "threshold-crossing",
  "firing-alert",
];

/** The badge word of `kind` (own-property lookup; an unknown kind renders raw). */
export function timelineBadge(kind: string): string {
  return Object.hasOwn(TIMELINE_BADGES, kind) ? TIMELINE_BADGES[kind as TimelineKind] : kind;
}

/** True when a row of `kind` may be pinned to an incident. */
export function isPinnable(kind: string): boolean {
  return Object.hasOwn(TIMELINE_BADGES, kind) && !(UNPINNABLE_KINDS as readonly string[]).includes(kind);
}
