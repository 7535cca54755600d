/**
 * "Where is the fault": the localization's suspects (GET /api/v1/fleet/suspects) as an operator reads them: what
 * is broken, where, how sure, and why (the evidence), then what else could fit. On the Overview (now, or the Time
 * Machine's instant) and in Investigate (its window, its scope's suspects first).
 */
import type { FleetSuspects, Suspect } from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useApp } from "../../context.tsx";
import { FleetError, Loading } from "./fleet-state.tsx";
import { suspectsQuery } from "./queries.tsx";
import { explanation, suspectElement, suspectTitle } from "./suspect-words.ts";

function ElementLink(p: { s: Suspect }) {
  const { s } = p;
  const text = suspectElement(s);
  if (s.node) {
    return (
      <Link to="/nodes/$name" params={{ name: s.node }} search={{ protocol: s.protocols[0] ?? "tcp" }}>
        {text}
      </Link>
    );
  }
  if (s.source && s.destination) {
    return (
      <Link to="/pairs/$source/$destination" params={{ source: s.source, destination: s.destination }}>
        {text}
      </Link>
    );
  }
  return (
    <Link to="/matrix" search={{ protocol: s.protocols[0] ?? "tcp" }}>
      {text}
    </Link>
  );
}

function SuspectItem(p: { s: Suspect; windowed: boolean }) {
  const { s } = p;
  const seen =
    p.windowed && s.firstSeen && s.lastSeen
      ? `seen ${new Date(s.firstSeen).toLocaleTimeString()} – ${new Date(s.lastSeen).toLocaleTimeString()}`
      : `since ${new Date(s.since).toLocaleTimeString()}`;
  return (
    <li
      className="suspect"
      data-testid="suspect"
      data-suspect-id={s.id}
      data-kind={s.kind}
      data-role={s.role}
    >
      <div className="suspect-head">
        <strong>{suspectTitle(s)}</strong>: <ElementLink s={s} />{" "}
        <span className="muted small">
          · {Math.round(s.confidence * 100)}% sure · {s.protocols.map((x) => x.toUpperCase()).join(", ")} ·{" "}
          {seen}
        </span>
      </div>
      <ul className="evidence">
        {s.evidence.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
    </li>
  );
}

/** The suspects of one answer; `only` keeps those that matter to a scope (Investigate), the rest are counted. */
export function SuspectsList(p: { data: FleetSuspects; windowed?: boolean; only?: (s: Suspect) => boolean }) {
  const all = explanation(p.data.suspects);
  const main = p.only ? all.filter(p.only) : all;
  const elsewhere = all.length - main.length;
  const alternatives = p.data.suspects.filter((s) => s.role === "alternative" && (!p.only || p.only(s)));
  if (all.length === 0) {
    return p.data.failingCells === 0 ? (
      <p className="ok" data-testid="no-suspect">
        No failing pairs: nothing to localize.
      </p>
    ) : (
      <p className="muted" data-testid="no-suspect">
        {p.data.failingCells} failing or lossy cells, scattered: no element explains them (no suspect).
      </p>
    );
  }
  return (
    <>
      <ol className="suspects" data-testid="suspects">
        {main.map((s) => (
          <SuspectItem key={s.id} s={s} windowed={p.windowed === true} />
        ))}
      </ol>
      {elsewhere > 0 ? (
        <p className="muted small">
          {elsewhere} more suspect{elsewhere === 1 ? "" : "s"} elsewhere in the fleet.
        </p>
      ) : null}
      {alternatives.length > 0 ? (
        <details className="alternatives">
          <summary>Also possible ({alternatives.length})</summary>
          <ol className="suspects">
            {alternatives.map((s) => (
              <SuspectItem key={s.id} s={s} windowed={p.windowed === true} />
            ))}
          </ol>
        </details>
      ) : null}
      <p className="muted small" data-testid="suspects-coverage">
        Explains {p.data.explainedCells} of {p.data.failingCells} failing or lossy cells across the TCP, UDP,
        ICMP and PMTU matrices.
      </p>
    </>
  );
}

/** The Overview's card: the suspects now, or as of the Time Machine's instant. */
export function SuspectsCard(p: { at?: string }) {
  const { api } = useApp();
  const q = useQuery(suspectsQuery(api, p.at));
  return (
    <div className="card" data-testid="where-is-the-fault">
      <h2>Where is the fault</h2>
      {q.error ? <FleetError error={q.error} /> : null}
      {!q.data && !q.error ? <Loading what="the suspects" /> : null}
      {q.data ? <SuspectsList data={q.data} /> : null}
    </div>
  );
}
