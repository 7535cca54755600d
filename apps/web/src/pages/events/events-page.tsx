/**
 * Events (/events, spec §2.11, §4.4, §6.2): the live feed over the tab's socket (topic `live`) on top of stored
 * history, operator annotations interleaved. Filters Severity / Type / Scope contains, Clear filters, Pause/Resume
 * with the buffered count, Load older, the counter line and the header badge; each degraded state named. Under the
 * Time Machine (`?at=`) it shows history up to that instant and does not tail.
 */
import * as c from "@svc/contract";
import "./events.css";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { can, configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { useLiveState, useTopic } from "../../live/use-live.tsx";
import { AnnotationForm, AnnotationRow, annotationsQuery } from "./annotations.tsx";
import {
  counterLine,
  EMPTY_FEED,
  type FeedFilters,
  type FeedModel,
  type FeedRow,
  feedBadge,
  gap,
  loadOlderRefusal,
  NO_FILTERS,
  older,
  pause,
  receive,
  resume,
  severityLabel,
  TYPE_WORDS,
  visible,
} from "./feed-model.ts";

const HISTORY_PAGE = 200;

/** Summary that opens with the type's words (spec §2.11). */
export function summaryOf(e: c.FeedEvent): string {
  const words = Object.hasOwn(TYPE_WORDS, e.type) ? TYPE_WORDS[e.type as c.EventType] : e.type;
  return e.summary.toLowerCase().startsWith(words.toLowerCase()) ? e.summary : `${words}: ${e.summary}`;
}

function EventRowView(p: { row: FeedRow }) {
  const r = p.row;
  if (r.kind === "gap")
    return (
      <tr className="feed-gap" data-testid="feed-gap">
        <td>{new Date(r.at).toLocaleTimeString()}</td>
        <td colSpan={3}>
          Possible loss: events {r.from}
          {r.to > r.from ? `–${r.to}` : ""} were not delivered to this tab ({r.reason}).
        </td>
      </tr>
    );
  const e = r.event;
  return (
    <tr data-testid="feed-row" data-type={e.type} data-severity={e.severity}>
      <td>
        <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
      </td>
      <td>
        <span className={`sev sev-${e.severity}`}>{severityLabel(e.severity)}</span>
      </td>
      <td>{summaryOf(e)}</td>
      <td>{e.scope}</td>
    </tr>
  );
}

function Filters(p: { value: FeedFilters; onChange: (f: FeedFilters) => void }) {
  const f = p.value;
  return (
    <fieldset className="feed-filters">
      <legend className="sr-only">Filters</legend>
      <label>
        Severity{" "}
        <select
          value={f.severity}
          onChange={(e) => p.onChange({ ...f, severity: e.target.value as FeedFilters["severity"] })}
        >
          <option value="">All</option>
          <option value="info">Info</option>
          <option value="warn">Warn</option>
          <option value="error">Error</option>
        </select>
      </label>
      <label>
        Type{" "}
        <select
          value={f.type}
          onChange={(e) => p.onChange({ ...f, type: e.target.value as FeedFilters["type"] })}
        >
          <option value="">All types</option>
          {c.EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {TYPE_WORDS[t]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Scope contains{" "}
        <input
          type="search"
          value={f.scope}
          maxLength={512}
          placeholder="node-1 -> node-2"
          onChange={(e) => p.onChange({ ...f, scope: e.target.value })}
        />
      </label>
      <button type="button" onClick={() => p.onChange(NO_FILTERS)}>
        Clear filters
      </button>
    </fieldset>
  );
}

/** The Events page; `at` (ISO instant) puts it under the Time Machine. */
export function EventsPage(p: { at?: string }) {
  const { api } = useApp();
  const config = useQuery(configQuery(api));
  const me = useQuery(meQuery(api));
  const live = useLiveState();
  const [model, setModel] = useState<FeedModel>(EMPTY_FEED);
  const [filters, setFilters] = useState<FeedFilters>(NO_FILTERS);
  const [rejected, setRejected] = useState<string | null>(null);
  const [historyError, setHistoryError] = useState<string | null>(null);
  const [olderNote, setOlderNote] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const canRead = can(me.data, "events:read");
  const hasHistory = config.data?.backends.history === true;
  const past = p.at !== undefined;

  const loadPage = useCallback(
    async (cursor: string | undefined) => {
      setLoading(true);
      try {
        const query: c.QueryOf<typeof c.listEvents> = { limit: HISTORY_PAGE };
        if (cursor) query.before = cursor;
        if (p.at) query.until = p.at;
        const page = await api.call(c.listEvents, { query });
        setModel((m) => older(m, page.events, page.nextCursor));
        setHistoryError(null);
      } catch (e) {
        setHistoryError(describeError(e));
      } finally {
        setLoading(false);
      }
    },
    [api, p.at],
  );

  useEffect(() => {
    setModel(EMPTY_FEED);
    if (canRead && hasHistory) void loadPage(undefined);
  }, [canRead, hasHistory, loadPage]);

  useTopic("live", canRead && !past, (s) => {
    if (s.kind === "event") {
      const e = c.FeedEvent.safeParse(s.data);
      if (e.success) setModel((m) => receive(m, e.data));
    } else if (s.kind === "gap") {
      setModel((m) => gap(m, s, Date.now()));
    } else if (s.kind === "error") {
      setRejected(s.message);
    } else if (s.kind === "subscribed") {
      setRejected(null);
    }
  });

  const annotations = useQuery({
    ...annotationsQuery(api, p.at),
    enabled: can(me.data, "annotations:read") && hasHistory,
  });
  const rows = useMemo(() => visible(model, filters), [model, filters]);
  const notes = useMemo(() => {
    const want = c.normalizeScope(filters.scope);
    return (annotations.data ?? []).filter((a) => !want || c.normalizeScope(a.scope).includes(want));
  }, [annotations.data, filters.scope]);
  const merged = useMemo(() => {
    const out: ({ t: number; row: FeedRow } | { t: number; note: c.Annotation })[] = [
      ...rows.map((row) => ({ t: row.at, row })),
      ...notes.map((note) => ({ t: Date.parse(note.at), note })),
    ];
    return out.sort((a, b) => b.t - a.t);
  }, [rows, notes]);

  if (me.isSuccess && !canRead)
    return (
      <section>
        <h1>Events</h1>
        <div className="card" role="alert">
          Your role does not include <code>events:read</code>, so the event feed is not shown.
        </div>
      </section>
    );

  const onLoadOlder = () => {
    const refusal = loadOlderRefusal(model);
    if (refusal) {
      setOlderNote(refusal);
      return;
    }
    setOlderNote(null);
    void loadPage(model.olderCursor ?? undefined);
  };
  const badge = past ? "Time Machine" : feedBadge(model.paused, live.connected, live.fed);
  return (
    <section className="events-page">
      <header className="page-head">
        <h1>Events</h1>
        <span className="badge" data-testid="feed-badge">
          {badge}
        </span>
        {!past ? (
          <button
            type="button"
            onClick={() => setModel((m) => (m.paused ? resume(m) : pause(m)))}
            data-testid="pause-button"
          >
            {model.paused ? `Resume (${model.buffered.length})` : "Pause"}
          </button>
        ) : null}
      </header>
      {!past && live.fed === false ? (
        <div className="banner banner-warn" role="status" data-testid="unfed-notice">
          This console is not receiving the controller's event stream: new events are delayed until it
          returns.
        </div>
      ) : null}
      {rejected ? (
        <div className="banner banner-warn" role="alert" data-testid="live-rejected">
          The live feed was refused: {rejected}
        </div>
      ) : null}
      {config.isError ? (
        <div className="banner banner-warn" role="alert" data-testid="history-unavailable">
          Event history is unavailable: the console configuration could not be read.
        </div>
      ) : historyError ? (
        <div className="banner banner-warn" role="alert" data-testid="history-unavailable">
          Event history is unavailable: {historyError}
        </div>
      ) : config.data && !hasHistory ? (
        <p className="muted" data-testid="no-history">
          This console has no database: only events that arrive while the page is open are shown, and there is
          no Load older.
        </p>
      ) : null}
      {can(me.data, "incidents:write") && hasHistory && !past ? <AnnotationForm /> : null}
      <Filters value={filters} onChange={setFilters} />
      <p className="muted" data-testid="feed-counter">
        {counterLine(model, filters)}
      </p>
      <table className="table feed" data-testid="feed">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Severity</th>
            <th scope="col">Summary</th>
            <th scope="col">Scope</th>
          </tr>
        </thead>
        <tbody>
          {merged.map((m) =>
            "row" in m ? (
              <EventRowView key={m.row.kind === "event" ? m.row.event.id : m.row.id} row={m.row} />
            ) : (
              <AnnotationRow
                key={`note-${m.note.id}`}
                note={m.note}
                editable={!past && can(me.data, "incidents:write")}
              />
            ),
          )}
        </tbody>
      </table>
      {hasHistory ? (
        <p>
          <button type="button" onClick={onLoadOlder} disabled={loading || model.olderCursor === null}>
            {loading ? "Loading…" : "Load older"}
          </button>{" "}
          {olderNote ? (
            <span role="status" data-testid="older-note">
              {olderNote}
            </span>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}
