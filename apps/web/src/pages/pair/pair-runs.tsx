/**
 * Runs on the Pair page (spec §4.4): Run MTR now and Run TCP now start a run of exactly this pair (POST
 * /api/v1/runs) and link to it; the last runs touching the pair are found by scanning the 20 most recent runs, and
 * the card says so. Both buttons are disabled under the Time Machine (a run probes now).
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { describeError } from "../../api/client.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { createdBy, useAt } from "../../shell/time-machine.tsx";

/** Runs scanned for the pair. */
const SCANNED = 20;

/** The card. */
export function PairRuns(p: { source: string; destination: string; past: boolean; canCreate: boolean }) {
  const { api } = useApp();
  const act = useAction(["pair-runs"]);
  const at = useAt();
  const runs = useQuery({
    queryKey: ["pair-runs", at ?? "live"],
    queryFn: async () => {
      const list = (await api.call(c.listRuns, { query: { limit: SCANNED } })).runs;
      return at === undefined ? list : createdBy(list, at);
    },
    refetchInterval: at === undefined ? 15_000 : false,
    retry: false,
  });
  const touching = (runs.data ?? []).filter((r) =>
    r.spec.pairs.some((x) => x.source === p.source && x.destination === p.destination),
  );
  const start = (type: "mtr" | "tcp") =>
    void act.run(
      () =>
        api.call(c.createRun, {
          body: {
            type,
            pairs: [{ source: p.source, destination: p.destination }],
            sources: [],
            destinations: [],
            durationSeconds: 0,
          },
        }),
      `${type.toUpperCase()} run started`,
    );
  return (
    <div className="card">
      <h2>Runs</h2>
      {p.canCreate ? (
        <p>
          <button type="button" disabled={p.past || act.busy} onClick={() => start("mtr")}>
            Run MTR now
          </button>{" "}
          <button type="button" disabled={p.past || act.busy} onClick={() => start("tcp")}>
            Run TCP now
          </button>
        </p>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
      {runs.error ? <p className="muted">{describeError(runs.error)}</p> : null}
      <p className="muted small">Scanned the {SCANNED} most recent runs.</p>
      {touching.length === 0 ? (
        <p className="muted">None of them touches this pair.</p>
      ) : (
        <ul data-testid="pair-runs">
          {touching.map((r) => (
            <li key={r.id}>
              <Link to="/runs/$id" params={{ id: r.id }}>
                {r.spec.type.toUpperCase()} {new Date(r.createdAt).toLocaleString()}
              </Link>{" "}
              — {r.status}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
