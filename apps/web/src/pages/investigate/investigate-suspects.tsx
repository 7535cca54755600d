/**
 * Investigate's "Where is the fault": the localization's suspects seen across the investigation's window (at up to
 * 8 instants; the last 24 h of a longer window), those that concern its scope first. Above the §4.5 ranked list,
 * which is unchanged: the suspects say where, the list says what happened before.
 */
import type { Suspect } from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { FleetError, Loading } from "../../components/fleet/fleet-state.tsx";
import { suspectsQuery } from "../../components/fleet/queries.tsx";
import { explainsPair } from "../../components/fleet/suspect-words.ts";
import { SuspectsList } from "../../components/fleet/suspects-card.tsx";
import { useApp } from "../../context.tsx";
import { type Investigation, pairEnds } from "./params.ts";

/** The longest window the suspects are read over (the console's default `prometheus.maxRange`). */
const MAX_WINDOW_MS = 24 * 3600_000;

/** Whether a suspect concerns the investigated scope (every suspect does for a zone pair or the cluster). */
export function concerns(s: Suspect, i: Investigation): boolean {
  if (i.kind === "pair") {
    const [a, b] = pairEnds(i.scope) ?? ["", ""];
    return explainsPair(s, undefined, a, b);
  }
  if (i.kind === "node")
    return (
      s.node === i.scope ||
      s.scope.some(
        (b) => b.sources?.includes(i.scope) !== false || b.destinations?.includes(i.scope) !== false,
      )
    );
  if (i.kind === "zone-pair") {
    const [a, b] = pairEnds(i.scope) ?? ["", ""];
    return s.zones === undefined || s.zones.some((z) => z === a || z === b);
  }
  return i.kind === "cluster";
}

export function InvestigateSuspects(p: { investigation: Investigation }) {
  const { api } = useApp();
  const i = p.investigation;
  const to = Date.parse(i.to);
  const from = Math.max(Date.parse(i.from), to - MAX_WINDOW_MS);
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const q = useQuery(suspectsQuery(api, undefined, window));
  return (
    <section className="card" aria-label="Where is the fault" data-testid="investigate-suspects">
      <h2>Where is the fault</h2>
      {from > Date.parse(i.from) ? <p className="muted small">Over the last 24 h of the window.</p> : null}
      {q.error ? <FleetError error={q.error} /> : null}
      {!q.data && !q.error ? <Loading what="the suspects over the window" /> : null}
      {q.data ? <SuspectsList data={q.data} windowed only={(s) => concerns(s, i)} /> : null}
    </section>
  );
}
