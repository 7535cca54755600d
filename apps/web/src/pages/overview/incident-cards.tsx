/**
 * Overview incident cards (spec §3.1, §4.4): the open incidents (as of the Time Machine instant, when set), found
 * by scanning the incident list newest first; the scan stops after 50 pages and says so.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { describeError } from "../../api/client.tsx";
import { can, configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { openIncidentsScanQuery, scopeText } from "../incidents/incident-queries.ts";

/** The open-incident cards, or nothing when the caller cannot read incidents or there is no database. */
export function IncidentCards() {
  const { api } = useApp();
  const at = useAt();
  const me = useQuery(meQuery(api)).data;
  const config = useQuery(configQuery(api)).data;
  const enabled = can(me, "incidents:read") && config?.backends.database === true;
  const scan = useQuery({ ...openIncidentsScanQuery(api, at), enabled });
  if (!enabled) return null;
  const s = scan.data;
  return (
    <section className="card" aria-label="Open incidents" data-testid="incident-cards">
      <h2>Open incidents{at ? ` as of ${new Date(at).toLocaleString()}` : ""}</h2>
      {scan.error ? <p role="alert">{describeError(scan.error)}</p> : null}
      {s && s.open.length === 0 ? <p className="muted">No open incidents.</p> : null}
      {s?.open.map((i) => (
        <div key={i.id} className="card incident-card" data-testid="incident-card">
          <Link to="/incidents/$id" params={{ id: i.id }}>
            <strong>{i.title}</strong>
          </Link>{" "}
          <span className="muted small">
            {scopeText(i)} · opened {new Date(i.openedAt).toLocaleString()} by{" "}
            {i.openedByDisplay || i.openedBy}
            {i.pins.length > 0 ? ` · ${i.pins.length} pinned` : ""}
          </span>
        </div>
      ))}
      {s?.cutOff ? (
        <p className="muted small" role="note" data-testid="incident-cutoff">
          Scanned the newest {s.pages} pages ({s.pages * c.INCIDENT_PAGE_SIZE} incidents) and stopped: older
          open incidents are not shown here. <Link to="/incidents">All incidents</Link>
        </p>
      ) : null}
    </section>
  );
}
