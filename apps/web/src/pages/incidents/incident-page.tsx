/**
 * One incident (spec §2.9, §3.1): scope, window, who opened it and when, notes (editable), pinned findings labelled
 * with their timeline badge word (removable), and Resolve / Reopen / Delete (Delete asks for a second press). Writes
 * need `incidents:write` and are disabled under the Time Machine, where the status shown is as of the instant.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { can, meQuery } from "../../api/queries.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { incidentQuery, scopeText } from "./incident-queries.ts";
import { statusWord } from "./incidents-page.tsx";

function Notes(p: { incident: c.Incident; writable: boolean }) {
  const { api } = useApp();
  const act = useAction(["incidents"]);
  const [notes, setNotes] = useState(p.incident.notes);
  useEffect(() => setNotes(p.incident.notes), [p.incident.notes]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    await act.run(
      () => api.call(c.updateIncidentNotes, { params: { id: p.incident.id }, body: { notes } }),
      "Notes saved.",
    );
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void save(e)} aria-label="Notes">
      <h2>Notes</h2>
      <textarea
        aria-label="Notes text"
        value={notes}
        onChange={(e) => setNotes(e.target.value)}
        maxLength={c.INCIDENT_NOTES_MAX}
        rows={8}
        style={{ width: "100%" }}
        readOnly={!p.writable}
      />
      {p.writable ? (
        <button type="submit" disabled={act.busy || notes === p.incident.notes}>
          Save notes
        </button>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
    </form>
  );
}

function Pins(p: { incident: c.Incident; writable: boolean }) {
  const { api } = useApp();
  const act = useAction(["incidents"]);
  const pins = p.incident.pins;
  return (
    <div className="card">
      <h2>Pinned findings</h2>
      {pins.length === 0 ? <p className="muted">Nothing pinned.</p> : null}
      <ul className="pins" aria-label="Pinned findings">
        {pins.map((f) => (
          <li key={f.id} data-testid="pinned-finding">
            <span className="badge">{f.badge}</span> <strong>{f.title}</strong>{" "}
            <span className="muted small">
              {new Date(f.timestamp).toLocaleString()}
              {f.severity ? ` · ${f.severity}` : ""}
              {f.reference ? ` · ${f.reference}` : ""}
            </span>
            {f.detail ? <p className="small">{f.detail}</p> : null}
            {f.note ? <p className="pin-note">Why it matters: {f.note}</p> : null}
            {p.writable ? (
              <ConfirmButton
                label="Unpin"
                confirmLabel="Press again to unpin"
                disabled={act.busy}
                onConfirm={() =>
                  void act.run(() => api.call(c.unpinFinding, { params: { id: p.incident.id, pinId: f.id } }))
                }
              />
            ) : null}
          </li>
        ))}
      </ul>
      <ActionStatus error={act.error} notice={act.notice} />
    </div>
  );
}

function Lifecycle(p: { incident: c.Incident }) {
  const { api } = useApp();
  const navigate = useNavigate();
  const act = useAction(["incidents"]);
  const id = p.incident.id;
  return (
    <div className="actions">
      {p.incident.status === "open" ? (
        <button
          type="button"
          disabled={act.busy}
          onClick={() => void act.run(() => api.call(c.resolveIncident, { params: { id } }), "Resolved.")}
        >
          Resolve
        </button>
      ) : (
        <button
          type="button"
          disabled={act.busy}
          onClick={() => void act.run(() => api.call(c.reopenIncident, { params: { id } }), "Reopened.")}
        >
          Reopen
        </button>
      )}
      <ConfirmButton
        label="Delete"
        confirmLabel="Press again to delete"
        disabled={act.busy}
        onConfirm={() =>
          void (async () => {
            if (await act.run(() => api.call(c.deleteIncident, { params: { id } })))
              await navigate({ to: "/incidents" });
          })()
        }
      />
      <ActionStatus error={act.error} notice={act.notice} />
    </div>
  );
}

/** The incident page. */
export function IncidentPage() {
  const { api } = useApp();
  const { id } = useParams({ from: "/app/incidents/$id" });
  const at = useAt();
  const me = useQuery(meQuery(api));
  const q = useQuery(incidentQuery(api, id, at));
  const writable = at === undefined && can(me.data, "incidents:write");
  const i = q.data;
  return (
    <section className="page">
      <p>
        <Link to="/incidents">Incidents</Link>
      </p>
      {q.error ? <p role="alert">{describeError(q.error)}</p> : null}
      {i ? (
        <>
          <h1>{i.title}</h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="incident-status">
              {statusWord(i.status)}
              {i.resolvedAt ? ` (${new Date(i.resolvedAt).toLocaleString()})` : ""}
              {at ? ` as of ${new Date(at).toLocaleString()}` : ""}
            </dd>
            <dt>Scope</dt>
            <dd>{scopeText(i)}</dd>
            <dt>Window</dt>
            <dd>
              {new Date(i.from).toLocaleString()} – {new Date(i.to).toLocaleString()}
            </dd>
            <dt>Opened</dt>
            <dd>
              {new Date(i.openedAt).toLocaleString()} by {i.openedByDisplay || i.openedBy}
            </dd>
            <dt>Permalink</dt>
            <dd>
              <a href={i.permalink}>{i.permalink}</a>
            </dd>
          </dl>
          {writable ? <Lifecycle incident={i} /> : null}
          {at ? <p className="muted">Changes are disabled under the Time Machine.</p> : null}
          <Notes incident={i} writable={writable} />
          <Pins incident={i} writable={writable} />
        </>
      ) : null}
    </section>
  );
}
