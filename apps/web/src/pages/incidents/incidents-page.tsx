/**
 * Incidents (spec §2.9, §3.1, §4.3): the list, newest first, with the status filter All / Open / Resolved and Load
 * more (50 per page, keyset cursor). Under the Time Machine the list is as of the viewed instant: incidents declared
 * by then, resolved only if resolved by then.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { describeError } from "../../api/client.tsx";
import { can, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { type IncidentFilter, incidentListQuery, scopeText } from "./incident-queries.ts";

const FILTERS: { value: IncidentFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "open", label: "Open" },
  { value: "resolved", label: "Resolved" },
];

/** "Open" / "Resolved". */
export function statusWord(s: "open" | "resolved"): string {
  return s === "open" ? "Open" : "Resolved";
}

/** The Incidents page. */
export function IncidentsPage() {
  const { api } = useApp();
  const at = useAt();
  const me = useQuery(meQuery(api));
  const [status, setStatus] = useState<IncidentFilter>("all");
  const list = useInfiniteQuery({
    ...incidentListQuery(api, status, at),
    enabled: can(me.data, "incidents:read"),
  });
  const rows = list.data?.pages.flatMap((p) => p.incidents) ?? [];
  return (
    <section className="page">
      <h1>Incidents</h1>
      {me.data && !can(me.data, "incidents:read") ? (
        <p role="alert">You need the incidents:read permission to see incidents.</p>
      ) : null}
      <div className="tabs" role="radiogroup" aria-label="Status">
        {FILTERS.map((f) => (
          <label key={f.value} className="tab">
            <input
              type="radio"
              name="incident-status"
              value={f.value}
              checked={status === f.value}
              onChange={() => setStatus(f.value)}
            />{" "}
            {f.label}
          </label>
        ))}
      </div>
      {at ? <p className="muted">Status as of {new Date(at).toLocaleString()}.</p> : null}
      {list.error ? <p role="alert">{describeError(list.error)}</p> : null}
      <div className="table-wrap">
        <table className="table" aria-label="Incidents">
          <thead>
            <tr>
              <th>Opened</th>
              <th>Title</th>
              <th>Scope</th>
              <th>Status</th>
              <th>Pinned</th>
              <th>Opened by</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((i) => (
              <tr key={i.id} data-testid="incident-row">
                <td>{new Date(i.openedAt).toLocaleString()}</td>
                <td>
                  <Link to="/incidents/$id" params={{ id: i.id }}>
                    {i.title}
                  </Link>
                </td>
                <td>{scopeText(i)}</td>
                <td>
                  <span className={i.status === "open" ? "badge warn" : "badge ok"}>
                    {statusWord(i.status)}
                  </span>
                </td>
                <td>{i.pins.length}</td>
                <td>{i.openedByDisplay || i.openedBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.isSuccess && rows.length === 0 ? <p className="muted">No incidents.</p> : null}
      {list.hasNextPage ? (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      ) : null}
    </section>
  );
}
