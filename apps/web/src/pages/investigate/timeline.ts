import { TIMELINE_KINDS, type TimelineKind } from "@svc/contract";

/**
 * The Investigation timeline's row (spec §2.10): `timestamp`, `kind`, `severity`, `title`, `detail`, `reference`.
 * Kinds and badge words are the contract's (shared with incidents' pinned findings). Each source turns its
 * records into rows; the ranking (causes.ts) reads only these fields, so a source never decides a row's weight.
 */

export { TIMELINE_BADGES, TIMELINE_KINDS, type TimelineKind, timelineBadge } from "@svc/contract";

export type TimelineSeverity = "info" | "warn" | "error";

export interface TimelineEntry {
  /** ISO 8601 */
  timestamp: string;
  kind: TimelineKind;
  severity: TimelineSeverity;
  title: string;
  detail: string;
  /** where the row comes from: a record id, a path in the console, or a query */
  reference: string;
  /** true for rows shown but never ranked (the audit rows §4.5 point 4 excludes) */
  excluded?: boolean;
}

/** Rows in time order (oldest first); ties keep their kind's order of TIMELINE_KINDS, then title. */
export function sortTimeline(rows: readonly TimelineEntry[]): TimelineEntry[] {
  const rank = new Map<TimelineKind, number>(TIMELINE_KINDS.map((k, i) => [k, i]));
  return [...rows].sort(
    (a, b) =>
      Date.parse(a.timestamp) - Date.parse(b.timestamp) ||
      (rank.get(a.kind) ?? 0) - (rank.get(b.kind) ?? 0) ||
      a.title.localeCompare(b.title),
  );
}
