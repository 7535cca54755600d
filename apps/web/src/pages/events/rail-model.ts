/**
 * The recent-changes rail of the Node and Pair pages (spec §4.3, §8.1): the newest 50 stored events of one object,
 * merged with the live events of the same object into a ring of at most 200 rows, newest first. The ring is the
 * Events page's (feed-model.ts) with a smaller capacity; this file decides which events concern the object.
 *
 * The history API's scope filter is a case-insensitive substring, so `node-1` also answers `node-10` and
 * `node-10->node-2`: history pages are filtered here on the exact scope (a node, or either end of a pair scope for
 * a node; the pair scope itself for a pair) and paged until 50 are found or the scan bound is reached.
 */
import { type FeedEvent, normalizeScope } from "@svc/contract";
import { emptyFeed, type FeedModel, older, receive } from "./feed-model.ts";

/** Stored events the rail shows at most (spec §8.1). */
export const RAIL_HISTORY = 50;
/** Rows the rail holds at most, history and live merged (spec §8.1). */
export const RAIL_RING = 200;
/** History pages (of RAIL_PAGE rows) scanned for the object's 50 before the rail stops looking. */
export const RAIL_PAGES_SCANNED = 5;
/** Rows asked per history page (the API's maximum). */
export const RAIL_PAGE = 200;

/** The object a rail is about. */
export type RailObject =
  | { kind: "node"; name: string }
  | { kind: "pair"; source: string; destination: string };

/** The `scope` filter sent to GET /api/v1/events for the object (a substring there; narrowed by `concerns`). */
export function railScopeFilter(o: RailObject): string {
  return o.kind === "node" ? o.name : `${o.source}->${o.destination}`;
}

/** True when an event's scope is the object: a node's own scope or a pair it is an end of; a pair's exact scope. */
export function concerns(o: RailObject, scope: string): boolean {
  const s = normalizeScope(scope);
  if (o.kind === "pair") return s === normalizeScope(`${o.source}->${o.destination}`);
  const name = normalizeScope(o.name);
  if (s === name) return true;
  const ends = s.split("->");
  return ends.length === 2 && (ends[0] === name || ends[1] === name);
}

/** An empty rail. */
export function emptyRail(): FeedModel {
  return emptyFeed(RAIL_RING);
}

/** A live event: joins the rail when it concerns the object. */
export function railReceive(m: FeedModel, o: RailObject, e: FeedEvent): FeedModel {
  return concerns(o, e.scope) ? receive(m, e) : m;
}

/** A page of the history API as the rail reads it. */
export interface HistoryPage {
  events: readonly FeedEvent[];
  nextCursor: string | null;
}

/** What a history scan found: the object's newest events (at most RAIL_HISTORY) and whether the scan was cut. */
export interface RailHistory {
  events: FeedEvent[];
  /** true when the scan stopped at RAIL_PAGES_SCANNED pages with older history left unread */
  cut: boolean;
}

/**
 * Reads history pages (newest first) through `fetchPage` until RAIL_HISTORY events concern the object, history
 * ends, or RAIL_PAGES_SCANNED pages were read.
 */
export async function scanHistory(
  o: RailObject,
  fetchPage: (cursor: string | undefined) => Promise<HistoryPage>,
): Promise<RailHistory> {
  const found: FeedEvent[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < RAIL_PAGES_SCANNED; i++) {
    const page = await fetchPage(cursor);
    for (const e of page.events) if (concerns(o, e.scope) && found.length < RAIL_HISTORY) found.push(e);
    if (found.length >= RAIL_HISTORY || page.nextCursor === null) return { events: found, cut: false };
    cursor = page.nextCursor;
  }
  return { events: found, cut: true };
}

/** The rail with the stored history merged in (live events already held are kept; duplicates are dropped). */
export function railHistory(m: FeedModel, h: RailHistory): FeedModel {
  return older(m, h.events, null);
}
