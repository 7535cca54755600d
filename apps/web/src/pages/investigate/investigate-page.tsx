/**
 * Investigation (spec §2.10, §4.5): committed parameters in the URL (`kind`, `scope`, `from`, `to`), or an incident
 * permalink `?incident=<id>` that opens the incident's window and carries only that key. One merged timeline of
 * every source the caller may read, each absent, bounded or failed source disclosed in one line, and the likely
 * causes ranked exactly as §4.5 says (causes.ts). With an incident open, rows can be pinned to it.
 */
import * as c from "@svc/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { ApiError, describeError } from "../../api/client.tsx";
import { can, configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { rankCauses } from "./causes.ts";
import { InvestigateActions } from "./investigate-actions.tsx";
import { InvestigateForm } from "./investigate-form.tsx";
import { InvestigateSuspects } from "./investigate-suspects.tsx";
import { type Investigation, investigationSearch, parseInvestigation } from "./params.ts";
import { gather } from "./sources.ts";
import { isSymptom } from "./symptoms.ts";
import { sortTimeline, type TimelineEntry } from "./timeline.ts";
import { CausesView, Disclosures, TimelineView } from "./timeline-view.tsx";

/** The investigation an incident opens: its scope and window (global as the cluster). */
export function incidentInvestigation(inc: c.Incident): Investigation {
  return { kind: inc.kind === "global" ? "cluster" : inc.kind, scope: inc.scope, from: inc.from, to: inc.to };
}

export function InvestigatePage() {
  const { api } = useApp();
  const at = useAt();
  const navigate = useNavigate();
  const search = useSearch({ strict: false }) as Record<string, unknown>;
  const latest = at ? Date.parse(at) : Date.now();
  // the default window is fixed when the page opens, not on every render
  const [opened] = useState(latest);
  const parsed = parseInvestigation(search, opened);
  const incidentId = parsed.ok && "incident" in parsed ? parsed.incident : undefined;
  const incident = useQuery({
    queryKey: ["incident", incidentId, at],
    enabled: incidentId !== undefined,
    retry: false,
    queryFn: () => api.call(c.getIncident, { params: { id: incidentId ?? "" }, query: at ? { at } : {} }),
  });
  const investigation: Investigation | undefined =
    parsed.ok && "value" in parsed
      ? parsed.value
      : incident.data
        ? incidentInvestigation(incident.data)
        : undefined;
  const commit = (i: Investigation) => void navigate({ to: "/investigate", search: investigationSearch(i) });
  return (
    <main id="main" className="page">
      <h1>Investigate</h1>
      {incidentId !== undefined ? (
        <IncidentHeader id={incidentId} error={incident.error} incident={incident.data} />
      ) : null}
      {!parsed.ok ? (
        <p role="alert" className="form-error">
          {parsed.error}
        </p>
      ) : null}
      {incidentId === undefined ? (
        <InvestigateForm
          key={JSON.stringify(investigation ?? null)}
          initial={investigation ?? (parsed.ok ? {} : parsed.partial)}
          latest={latest}
          onCommit={commit}
        />
      ) : null}
      {investigation ? <Results investigation={investigation} incident={incident.data} /> : null}
    </main>
  );
}

function IncidentHeader(p: { id: string; error: unknown; incident: c.Incident | undefined }) {
  if (p.error instanceof ApiError && p.error.status === 404)
    return (
      <div className="card">
        <h2>No such incident</h2>
        <p>
          There is no incident with this id. <Link to="/investigate">New investigation</Link>
        </p>
      </div>
    );
  if (p.error) return <p role="alert">{describeError(p.error)}</p>;
  if (!p.incident) return <p className="muted">Loading the incident…</p>;
  return (
    <div className="card">
      <h2>
        Incident: {p.incident.title}{" "}
        <span className={`badge status-${p.incident.status}`}>{p.incident.status}</span>
      </h2>
      <p className="muted">
        {p.incident.kind} {p.incident.scope} · {new Date(p.incident.from).toLocaleString()} –{" "}
        {new Date(p.incident.to).toLocaleString()} · opened by {p.incident.openedByDisplay}
      </p>
    </div>
  );
}

function Results(p: { investigation: Investigation; incident: c.Incident | undefined }) {
  const { api } = useApp();
  const at = useAt();
  const me = useQuery(meQuery(api));
  const config = useQuery({ ...configQuery(api), retry: false });
  const i = p.investigation;
  const target = useQuery({
    queryKey: ["target", i.scope],
    enabled: i.kind === "target",
    retry: false,
    queryFn: () => api.call(c.getTarget, { params: { id: i.scope } }),
  });
  const permissions = useMemo(() => new Set(me.data?.permissions ?? []), [me.data]);
  const configState = config.isError ? null : config.data;
  const ready =
    me.data !== undefined && configState !== undefined && (i.kind !== "target" || !target.isLoading);
  const timeline = useQuery({
    queryKey: [
      "investigation",
      i,
      [...permissions].sort().join(","),
      configState === null,
      target.data?.name,
    ],
    enabled: ready && !(target.error instanceof ApiError && target.error.status === 404),
    staleTime: 60_000,
    queryFn: () =>
      gather(i, {
        api,
        permissions,
        config: configState ?? null,
        ...(target.data ? { targetName: target.data.name } : {}),
      }),
  });
  const rows = useMemo(() => sortTimeline(timeline.data?.rows ?? []), [timeline.data]);
  const ranking = useMemo(() => rankCauses(rows), [rows]);
  if (target.error instanceof ApiError && target.error.status === 404)
    return (
      <div className="card">
        <h2>No such target</h2>
        <p>There is no target with this id.</p>
      </div>
    );
  if (timeline.isLoading || !ready) return <p className="muted">Reading the sources…</p>;
  if (timeline.error) return <p role="alert">{describeError(timeline.error)}</p>;
  const database = configState?.backends.database ?? false;
  const canWrite = can(me.data, "incidents:write");
  const writeOff = at
    ? "The Time Machine is on: saving and creating maintenance are off."
    : !database
      ? "The console has no database: incidents and maintenance windows cannot be saved."
      : undefined;
  return (
    <>
      <InvestigateSuspects investigation={i} />
      <CausesView ranking={ranking} symptom={(row) => isSymptom(row, i)} />
      <Disclosures lines={timeline.data?.disclosures ?? []} />
      <Pinning incident={p.incident} rows={rows} enabled={canWrite && !writeOff} />
      <InvestigateActions
        investigation={i}
        rows={rows}
        ranking={ranking}
        disclosures={timeline.data?.disclosures ?? []}
        canWrite={canWrite && p.incident === undefined}
        {...(target.data ? { targetName: target.data.name } : {})}
        {...(writeOff ? { writeOff } : {})}
      />
    </>
  );
}

/** The timeline; with an incident open, pinnable rows get a Pin button (the note box above applies). */
function Pinning(p: { incident: c.Incident | undefined; rows: readonly TimelineEntry[]; enabled: boolean }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const [note, setNote] = useState("");
  const [error, setError] = useState("");
  const inc = p.incident;
  const pinned = new Set(inc?.pins.map((x) => `${x.kind}|${x.timestamp}|${x.title}`) ?? []);
  const pin = async (r: TimelineEntry) => {
    if (!inc) return;
    setError("");
    try {
      await api.call(c.pinFinding, {
        params: { id: inc.id },
        body: {
          timestamp: r.timestamp,
          kind: r.kind,
          severity: r.severity,
          title: r.title,
          detail: r.detail,
          reference: r.reference,
          note,
        },
      });
      setNote("");
      await queryClient.invalidateQueries({ queryKey: ["incident", inc.id] });
    } catch (e) {
      setError(describeError(e));
    }
  };
  const action =
    inc && p.enabled
      ? (r: TimelineEntry) =>
          !c.isPinnable(r.kind) ? null : pinned.has(
              `${r.kind}|${new Date(r.timestamp).toISOString()}|${r.title}`,
            ) ? (
            <span className="muted">pinned</span>
          ) : (
            <button type="button" onClick={() => void pin(r)}>
              Pin
            </button>
          )
      : undefined;
  return (
    <>
      {inc && p.enabled ? (
        <div className="card">
          <label>
            Why it matters (for the next pin){" "}
            <textarea value={note} maxLength={c.PIN_NOTE_MAX} onChange={(e) => setNote(e.target.value)} />
          </label>
          <p className="form-error" role="alert">
            {error}
          </p>
        </div>
      ) : null}
      <TimelineView rows={p.rows} {...(action ? { action } : {})} />
    </>
  );
}
