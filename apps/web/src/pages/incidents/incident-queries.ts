/**
 * Incident reads for the web app: the list's pages (status filter, keyset cursor, the Time Machine instant), one
 * incident, and the Overview scan of open incidents (spec §4.4: newest first, stopping after 50 pages, with the
 * cut-off disclosed).
 */
import * as c from "@svc/contract";
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { ApiClient } from "../../api/client.tsx";

/** A status filter value of the list. */
export type IncidentFilter = (typeof c.INCIDENT_FILTERS)[number];

/** The list, page by page (Load more follows `nextCursor`). */
export const incidentListQuery = (api: ApiClient, status: IncidentFilter, at: string | undefined) =>
  infiniteQueryOptions({
    queryKey: ["incidents", "list", status, at ?? "live"],
    queryFn: ({ pageParam }) =>
      api.call(c.listIncidents, {
        query: { status, ...(pageParam ? { cursor: pageParam } : {}), ...(at ? { at } : {}) },
      }),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: at ? false : 30_000,
  });

/** One incident (as of `at`). */
export const incidentQuery = (api: ApiClient, id: string, at: string | undefined) =>
  queryOptions({
    queryKey: ["incidents", "one", id, at ?? "live"],
    queryFn: () => api.call(c.getIncident, { params: { id }, query: at ? { at } : {} }),
  });

/** What the Overview scan found. */
export interface IncidentScan {
  open: c.Incident[];
  pages: number;
  /** true when the scan stopped at the page bound with more pages left */
  cutOff: boolean;
}

/** Reads open incidents newest first, at most `maxPages` pages (spec §8.1: 50). */
export async function scanOpenIncidents(
  api: ApiClient,
  at: string | undefined,
  maxPages = c.INCIDENT_SCAN_PAGES,
): Promise<IncidentScan> {
  const open: c.Incident[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { incidents: c.Incident[]; nextCursor: string | null } = await api.call(c.listIncidents, {
      query: { status: "open", ...(cursor ? { cursor } : {}), ...(at ? { at } : {}) },
    });
    pages++;
    open.push(...page.incidents);
    cursor = page.nextCursor;
  } while (cursor && pages < maxPages);
  return { open, pages, cutOff: cursor !== null };
}

/** The Overview scan as a query. */
export const openIncidentsScanQuery = (api: ApiClient, at: string | undefined) =>
  queryOptions({
    queryKey: ["incidents", "scan", at ?? "live"],
    queryFn: () => scanOpenIncidents(api, at),
    refetchInterval: at ? false : 60_000,
  });

/** "node node-2", "pair a->b", "global". */
export function scopeText(i: Pick<c.Incident, "kind" | "scope">): string {
  return i.kind === "global" ? "global" : `${i.kind} ${i.scope}`;
}
