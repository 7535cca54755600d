/**
 * Runs (spec §3.7, §4.3): the newest runs, started by hand or schedules' rounds (the Origin column), and a form to
 * start one (pairs as `source->destination` lines and/or sources x destinations; 0 s = instant); a run's page
 * shows its pairs, updated live from `run:{id}`.
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { describeError } from "../../api/client.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useTopic } from "../../live/use-live.tsx";
import { createdBy, useAt } from "../../shell/time-machine.tsx";

/** The newest runs; under the Time Machine only those created by `at`, and no polling (the past does not move). */
export const runsQuery = (api: ApiClient, at?: string) =>
  queryOptions({
    queryKey: ["runs", at ?? "live"],
    queryFn: async () => {
      const runs = (await api.call(c.listRuns, { query: { limit: 50 } })).runs;
      return at === undefined ? runs : createdBy(runs, at);
    },
    refetchInterval: at === undefined ? 10_000 : false,
  });

export const runQuery = (api: ApiClient, id: string) =>
  queryOptions({ queryKey: ["run", id], queryFn: () => api.call(c.getRun, { params: { id } }) });

const split = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter((x) => x !== "");

/** `a->b` lines as pairs. */
function parsePairs(s: string): { source: string; destination: string }[] {
  return s
    .split("\n")
    .map((l) => l.split(/\s*(?:->|=>|>)\s*/))
    .filter((p): p is [string, string] => p.length === 2 && p[0] !== "" && p[1] !== undefined && p[1] !== "")
    .map(([source, destination]) => ({ source: source.trim(), destination: destination.trim() }));
}

function StartRun(p: { past: boolean }) {
  const { api } = useApp();
  const navigate = useNavigate();
  const act = useAction(["runs"]);
  const [type, setType] = useState<c.RunProbeType>("tcp");
  const [pairs, setPairs] = useState("");
  const [sources, setSources] = useState("");
  const [destinations, setDestinations] = useState("");
  const [duration, setDuration] = useState("0");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let id = "";
    const ok = await act.run(async () => {
      const run = await api.call(c.createRun, {
        body: {
          type,
          pairs: parsePairs(pairs),
          sources: split(sources),
          destinations: split(destinations),
          durationSeconds: Number(duration) || 0,
        },
      });
      id = run.id;
    });
    if (ok && id) await navigate({ to: "/runs/$id", params: { id } });
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Start run">
      <h2>Start run</h2>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as c.RunProbeType)}>
          {c.RunProbeType.options.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Pairs (one source-&gt;destination per line)
        <textarea value={pairs} onChange={(e) => setPairs(e.target.value)} rows={3} />
      </label>
      <label>
        Sources (every source x every destination)
        <input value={sources} onChange={(e) => setSources(e.target.value)} />
      </label>
      <label>
        Destinations
        <input value={destinations} onChange={(e) => setDestinations(e.target.value)} />
      </label>
      <label>
        Duration (seconds; 0 = once)
        <input
          type="number"
          min={0}
          max={86_400}
          value={duration}
          onChange={(e) => setDuration(e.target.value)}
        />
      </label>
      <button type="submit" disabled={act.busy || p.past}>
        Start run
      </button>
      {p.past ? (
        <p className="muted small" data-testid="start-run-disabled">
          A run probes now: return to live to start one.
        </p>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
    </form>
  );
}

/** Where a run came from, as the pages show it: started by hand, or a schedule's round to its target. */
export function originText(r: c.Run): string {
  if (r.origin !== "schedule") return "manual";
  const to = r.target ? ` → ${r.target.name}` : "";
  return `schedule ${r.schedule?.name ?? ""}${to}`;
}

/** The Runs page. */
export function RunsPage() {
  const { api } = useApp();
  const at = useAt();
  const runs = useQuery(runsQuery(api, at));
  return (
    <main id="main" className="page">
      <h1>Runs</h1>
      {runs.error ? <p role="alert">{describeError(runs.error)}</p> : null}
      <table className="table" aria-label="Runs">
        <thead>
          <tr>
            <th>Started</th>
            <th>Type</th>
            <th>Pairs</th>
            <th>Status</th>
            <th>Origin</th>
            <th>By</th>
          </tr>
        </thead>
        <tbody>
          {(runs.data ?? []).map((r) => (
            <tr key={r.id} data-testid="run-row">
              <td>
                <Link to="/runs/$id" params={{ id: r.id }}>
                  {new Date(r.createdAt).toLocaleString()}
                </Link>
              </td>
              <td>{r.spec.type}</td>
              <td>{r.pairs.length}</td>
              <td>{r.status}</td>
              <td data-testid="run-origin">{originText(r)}</td>
              <td>{r.createdBy}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <StartRun past={at !== undefined} />
    </main>
  );
}

/** One run, its pairs updated live while it runs. */
export function RunPage() {
  const { api } = useApp();
  const { id } = useParams({ from: "/app/runs/$id" });
  const queryClient = useQueryClient();
  const run = useQuery(runQuery(api, id));
  const running = run.data?.status === "running";
  useTopic(`run:${id}`, running, (s) => {
    if (s.kind === "event") queryClient.setQueryData(["run", id], s.data as c.Run);
  });
  const r = run.data;
  return (
    <main id="main" className="page">
      <h1>Run</h1>
      {run.error ? <p role="alert">{describeError(run.error)}</p> : null}
      {r ? (
        <>
          <p>
            {r.spec.type}, {r.pairs.length} pair(s),{" "}
            {r.plannedSamplesPerPair === undefined
              ? "instant"
              : `${r.plannedSamplesPerPair} samples every ${(r.plannedSampleIntervalNs ?? 0) / 1e9} s`}
            . Status: <strong data-testid="run-status">{r.status}</strong>. Origin: {originText(r)}
          </p>
          {r.error ? (
            <p className="warn" data-testid="run-error">
              The round could not probe: {r.error}
            </p>
          ) : null}
          <table className="table" aria-label="Pairs">
            <thead>
              <tr>
                <th>Source</th>
                <th>Destination</th>
                <th>State</th>
                <th>Samples</th>
                <th>Succeeded</th>
                <th>Last error</th>
              </tr>
            </thead>
            <tbody>
              {r.pairs.map((p) => (
                <tr key={`${p.source}->${p.destination}`} data-testid="run-pair">
                  <td>{p.source}</td>
                  <td>{p.destination}</td>
                  <td>{p.state}</td>
                  <td>
                    {p.samples}
                    {r.plannedSamplesPerPair === undefined ? "" : ` / ${r.plannedSamplesPerPair}`}
                  </td>
                  <td>{p.successes}</td>
                  <td>{p.lastError ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </main>
  );
}
