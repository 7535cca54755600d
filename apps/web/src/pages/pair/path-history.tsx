/**
 * The pair's MTR path history (GET /api/v1/mtr/snapshots): each path its traces took, newest first, with when it
 * was first and last seen: a new row is a path change. Not asked under the Time Machine (history is shown live).
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { describeError } from "../../api/client.tsx";
import { useApp } from "../../context.tsx";

/** The card. */
export function PathHistory(p: { source: string; destination: string }) {
  const { api } = useApp();
  const q = useQuery({
    queryKey: ["mtr-snapshots", p.source, p.destination],
    queryFn: async () =>
      (await api.call(c.listMtrSnapshots, { query: { source: p.source, destination: p.destination } }))
        .snapshots,
    refetchInterval: 60_000,
    retry: false,
  });
  return (
    <div className="card">
      <h2>MTR path history</h2>
      {q.error ? <p className="muted">{describeError(q.error)}</p> : null}
      {q.data?.length === 0 ? <p className="muted">No completed trace stored for this pair yet.</p> : null}
      {q.data && q.data.length > 0 ? (
        <table className="table" data-testid="path-history">
          <thead>
            <tr>
              <th>Path</th>
              <th>First seen</th>
              <th>Last seen</th>
              <th>Traces</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((s) => (
              <tr key={`${s.pathHash}-${s.firstAt}`}>
                <td>{s.hops.map((h) => h.ip || "*").join(" → ")}</td>
                <td>{new Date(s.firstAt).toLocaleString()}</td>
                <td>{new Date(s.lastAt).toLocaleString()}</td>
                <td>{s.traces}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
