/**
 * The Events page's state, without React (spec §2.11, §4.4, §6.2): the ring of the newest 2000 events (live ones
 * and older pages loaded from history), the pause buffer, gap markers, the filters and the counter line. Every
 * operation returns a new model, so React state holds it as a value.
 */
import { type EVENT_TYPES, type FeedEvent, normalizeScope } from "@svc/contract";

/** Events the browser keeps (spec §8.1). */
export const RING_CAP = 2000;

/** A possible loss between two sequence numbers of the live topic. */
export interface GapMarker {
  kind: "gap";
  /** id for React keys */
  id: string;
  /** when the gap was noticed (epoch ms): it sorts among events by this instant */
  at: number;
  from: number;
  to: number;
  reason: string;
}

/** One row of the list. */
export type FeedRow = { kind: "event"; event: FeedEvent; at: number } | GapMarker;

/** Filter values as the controls hold them ("" = all). */
export interface FeedFilters {
  severity: "" | "info" | "warn" | "error";
  type: "" | (typeof EVENT_TYPES)[number];
  scope: string;
}

export const NO_FILTERS: FeedFilters = { severity: "", type: "", scope: "" };

/** The model. */
export interface FeedModel {
  /** newest first; events and gap markers */
  rows: readonly FeedRow[];
  /** events held (gap markers not counted), at most `capacity` */
  held: number;
  paused: boolean;
  /** live events that arrived while paused, newest first */
  buffered: readonly FeedEvent[];
  /** ids held, so a replayed or reloaded event is not shown twice */
  ids: ReadonlySet<string>;
  /** history cursor for Load older: undefined before the first page, null when history is exhausted */
  olderCursor: string | null | undefined;
  /** events the ring keeps (RING_CAP on the Events page; smaller lists such as the recent-changes rail pass less) */
  capacity: number;
}

/** An empty ring keeping the newest `capacity` events. */
export function emptyFeed(capacity: number): FeedModel {
  return { rows: [], held: 0, paused: false, buffered: [], ids: new Set(), olderCursor: undefined, capacity };
}

/** The Events page's empty ring (RING_CAP events). */
export const EMPTY_FEED: FeedModel = emptyFeed(RING_CAP);

const time = (e: FeedEvent): number => {
  const t = Date.parse(e.at);
  return Number.isFinite(t) ? t : 0;
};

function eventRow(event: FeedEvent): FeedRow {
  return { kind: "event", event, at: time(event) };
}

/** Keeps the newest `capacity` events (and the gap markers among them), newest first. */
function cap(rows: FeedRow[], capacity: number): { rows: FeedRow[]; held: number; ids: Set<string> } {
  rows.sort((a, b) => b.at - a.at);
  const out: FeedRow[] = [];
  const ids = new Set<string>();
  for (const r of rows) {
    if (r.kind === "event") {
      if (ids.size >= capacity) break;
      ids.add(r.event.id);
    }
    out.push(r);
  }
  return { rows: out, held: ids.size, ids };
}

function merge(m: FeedModel, events: readonly FeedEvent[], extra: readonly FeedRow[] = []): FeedModel {
  const fresh = events.filter((e) => !m.ids.has(e.id));
  if (fresh.length === 0 && extra.length === 0) return m;
  const { rows, held, ids } = cap([...m.rows, ...fresh.map(eventRow), ...extra], m.capacity);
  return { ...m, rows, held, ids };
}

/** A live event: shown at once, or buffered while paused. */
export function receive(m: FeedModel, event: FeedEvent): FeedModel {
  if (m.paused) {
    if (m.ids.has(event.id) || m.buffered.some((b) => b.id === event.id)) return m;
    // the buffer itself is bounded by the ring: older buffered events would fall out on resume anyway
    return { ...m, buffered: [event, ...m.buffered].slice(0, m.capacity) };
  }
  return merge(m, [event]);
}

/** A gap on the live topic (possible loss), shown where it was noticed. */
export function gap(m: FeedModel, g: { from: number; to: number; reason: string }, now: number): FeedModel {
  const marker: GapMarker = { kind: "gap", id: `gap-${g.from}-${g.to}-${now}`, at: now, ...g };
  const { rows, held, ids } = cap([...m.rows, marker], m.capacity);
  return { ...m, rows, held, ids };
}

export function pause(m: FeedModel): FeedModel {
  return m.paused ? m : { ...m, paused: true };
}

/** Resume: the buffered events join the list. */
export function resume(m: FeedModel): FeedModel {
  if (!m.paused) return m;
  return merge({ ...m, paused: false, buffered: [] }, m.buffered);
}

/** Why Load older is refused now, or undefined when it may run. */
export function loadOlderRefusal(m: FeedModel): string | undefined {
  if (m.held >= m.capacity)
    return `The event buffer is full at the cap of ${m.capacity} events; older events are not loaded. Narrow the filters on the server with the history API, or reload the page.`;
  if (m.olderCursor === null) return "No older events are stored.";
  return undefined;
}

/** A page of history (newest first) with its cursor. */
export function older(m: FeedModel, events: readonly FeedEvent[], nextCursor: string | null): FeedModel {
  return { ...merge(m, events), olderCursor: nextCursor };
}

/** True when a row passes the filters (gap markers always show: a loss concerns every filter). */
export function matches(row: FeedRow, f: FeedFilters): boolean {
  if (row.kind === "gap") return true;
  const e = row.event;
  if (f.severity && e.severity.toLowerCase() !== f.severity) return false;
  if (f.type && e.type !== f.type) return false;
  const want = normalizeScope(f.scope);
  if (want && !normalizeScope(e.scope).includes(want)) return false;
  return true;
}

/** The rows the list shows. */
export function visible(m: FeedModel, f: FeedFilters): FeedRow[] {
  return m.rows.filter((r) => matches(r, f));
}

/** `Showing {shown} of {held} events · capped at 2000` (spec §6.2). */
export function counterLine(m: FeedModel, f: FeedFilters): string {
  const shown = m.rows.filter((r) => r.kind === "event" && matches(r, f)).length;
  return `Showing ${shown} of ${m.held} events · capped at ${m.capacity}`;
}

/** The header badge (spec §6.2). */
export function feedBadge(paused: boolean, connected: boolean, fed: boolean | null): string {
  if (paused) return connected ? "Paused · socket live" : "Paused · socket down";
  return connected && fed !== false ? "Live" : "Delayed data";
}

/** Words of each type, for the Type filter and the summary (spec §4.4). */
export const TYPE_WORDS: Readonly<Record<(typeof EVENT_TYPES)[number], string>> = {
  TopologyChanged: "Topology changed",
  CheckObserved: "Check observed",
  MTRTriggered: "MTR triggered",
  MTRCompleted: "MTR completed",
  DiagnosticProgress: "Diagnostic progress",
};

/** Severity as the column shows it: Info, Warn, Error, or an unknown wire value raw. */
export function severityLabel(s: string): string {
  if (s === "info") return "Info";
  if (s === "warn") return "Warn";
  if (s === "error") return "Error";
  return s;
}
