/**
 * The "Recent changes" rail of the Node and Pair pages (spec §4.3, §8.1): the object's newest 50 stored events
 * (GET /api/v1/events) merged with its live events (topic `live`), at most 200 rows, newest first. Each degraded
 * case is one line: no `events:read` (not shown), no database or a failed history read (history unavailable; live
 * rows still arrive), live topic refused. Under the Time Machine (`at`) it lists history up to that instant and
 * does not tail.
 */
import * as c from "@svc/contract";
import "./rail.css";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { can, configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { useLiveState, useTopic } from "../../live/use-live.tsx";
import { summaryOf } from "./events-page.tsx";
import { type FeedModel, feedBadge, severityLabel } from "./feed-model.ts";
import {
  emptyRail,
  RAIL_HISTORY,
  RAIL_PAGE,
  RAIL_PAGES_SCANNED,
  RAIL_RING,
  type RailObject,
  railHistory,
  railReceive,
  railScopeFilter,
  scanHistory,
} from "./rail-model.ts";

/** The rail for `object`; `at` (ISO instant) puts it under the Time Machine. */
export function RecentChanges(p: { object: RailObject; at?: string }) {
  const { api } = useApp();
  const me = useQuery(meQuery(api));
  const config = useQuery(configQuery(api));
  const [model, setModel] = useState<FeedModel>(emptyRail);
  const [historyError, setHistoryError] = useState<string | null>(null);
  const [cut, setCut] = useState(false);
  const [loading, setLoading] = useState(false);
  const [rejected, setRejected] = useState<string | null>(null);
  const [tailing, setTailing] = useState(false);
  const live = useLiveState();
  const canRead = can(me.data, "events:read");
  const hasHistory = config.data?.backends.history === true;
  const past = p.at !== undefined;
  const o = p.object;
  // one string for the object: a fresh `object` prop naming the same node or pair does not reload history
  const key = o.kind === "node" ? `node\n${o.name}` : `pair\n${o.source}\n${o.destination}`;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `o`
  useEffect(() => {
    setModel(emptyRail());
    setHistoryError(null);
    setCut(false);
    if (!canRead || !hasHistory) return;
    let stale = false;
    setLoading(true);
    scanHistory(o, async (cursor) => {
      const query: c.QueryOf<typeof c.listEvents> = { scope: railScopeFilter(o), limit: RAIL_PAGE };
      if (cursor) query.before = cursor;
      if (p.at) query.until = p.at;
      return api.call(c.listEvents, { query });
    })
      .then((h) => {
        if (stale) return;
        setModel((m) => railHistory(m, h));
        setCut(h.cut);
      })
      .catch((e: unknown) => {
        if (!stale) setHistoryError(describeError(e));
      })
      .finally(() => {
        if (!stale) setLoading(false);
      });
    return () => {
      stale = true;
    };
  }, [api, key, p.at, canRead, hasHistory]);

  useTopic("live", canRead && !past, (s) => {
    if (s.kind === "event") {
      const e = c.FeedEvent.safeParse(s.data);
      if (e.success) setModel((m) => railReceive(m, o, e.data));
    } else if (s.kind === "error") {
      setRejected(s.message);
      setTailing(false);
    } else if (s.kind === "subscribed") {
      setRejected(null);
      setTailing(true);
    }
  });

  if (!me.isSuccess) return null;
  if (!canRead)
    return (
      <aside className="card rail" aria-label="Recent changes">
        <h2>Recent changes</h2>
        <p className="muted small" data-testid="rail-state">
          Not shown: your role does not include <code>events:read</code>.
        </p>
      </aside>
    );
  const rows = model.rows.flatMap((r) => (r.kind === "event" ? [r.event] : []));
  let state: string | null = null;
  if (config.isError) state = "History unavailable: the console configuration could not be read.";
  else if (historyError) state = `History unavailable: ${historyError}`;
  else if (config.data && !hasHistory)
    state = "History unavailable: this console has no database; only changes arriving now are listed.";
  return (
    <aside className="card rail" aria-label="Recent changes">
      <h2>
        Recent changes{" "}
        {!past && tailing ? (
          <span className="badge" data-testid="rail-badge">
            {feedBadge(false, live.connected, live.fed)}
          </span>
        ) : null}
      </h2>
      {past ? (
        <p className="muted small" data-testid="rail-past">
          Stored changes up to <time dateTime={p.at}>{new Date(p.at ?? "").toLocaleString()}</time>; not
          tailing.
        </p>
      ) : null}
      {state ? (
        <p className="warn small" role="status" data-testid="rail-state">
          {state}
        </p>
      ) : null}
      {rejected ? (
        <p className="warn small" role="status" data-testid="rail-live-refused">
          Live changes refused: {rejected}
        </p>
      ) : null}
      {loading && rows.length === 0 ? <p className="muted small">Loading…</p> : null}
      {!loading && rows.length === 0 ? (
        <p className="muted small" data-testid="rail-empty">
          No changes {past ? "stored up to then" : "stored or received"}.
        </p>
      ) : null}
      {rows.length > 0 ? (
        <ol className="rail-list" data-testid="rail">
          {rows.map((e) => (
            <li key={e.id} data-testid="rail-row" data-scope={e.scope} data-type={e.type}>
              <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>{" "}
              <span className={`sev sev-${e.severity}`}>{severityLabel(e.severity)}</span>
              <div>{summaryOf(e)}</div>
            </li>
          ))}
        </ol>
      ) : null}
      <p className="muted small">
        The newest {RAIL_HISTORY} stored, with live ones, up to {RAIL_RING}
        {cut
          ? `; scanned ${RAIL_PAGE * RAIL_PAGES_SCANNED} stored events matching the name, older ones not listed`
          : ""}
        .
      </p>
    </aside>
  );
}
