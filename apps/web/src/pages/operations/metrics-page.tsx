/**
 * Metrics (issue 21): a PromQL box, instant or range over the last hour, the answer as a table (instant) or a
 * line chart per series (range).
 */
import * as c from "@svc/contract";
import { type FormEvent, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { useApp } from "../../context.tsx";

type Series = { metric: Record<string, string>; values: [number, string][] };

function labelsOf(m: Record<string, string>): string {
  const name = m.__name__ ?? "";
  const rest = Object.entries(m)
    .filter(([k]) => k !== "__name__")
    .map(([k, v]) => `${k}="${v}"`)
    .join(", ");
  return rest ? `${name}{${rest}}` : name || "{}";
}

/** A line per series (range query answers). */
export function Chart(p: { series: Series[] }) {
  const W = 800;
  const H = 240;
  const pts = p.series.flatMap((s) => s.values.map(([t, v]) => [t, Number(v)] as const));
  if (pts.length === 0) return <p>No data.</p>;
  const ts = pts.map(([t]) => t);
  const vs = pts.map(([, v]) => v).filter(Number.isFinite);
  const [t0, t1] = [Math.min(...ts), Math.max(...ts)];
  const [v0, v1] = [Math.min(...vs), Math.max(...vs)];
  const x = (t: number) => (t1 === t0 ? W / 2 : ((t - t0) / (t1 - t0)) * W);
  const y = (v: number) => (v1 === v0 ? H / 2 : H - ((v - v0) / (v1 - v0)) * H);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label="Query chart"
      data-testid="metrics-chart"
      className="chart"
    >
      {p.series.map((s) => (
        <polyline
          key={labelsOf(s.metric)}
          fill="none"
          stroke="currentColor"
          points={s.values.map(([t, v]) => `${x(t)},${y(Number(v))}`).join(" ")}
        />
      ))}
    </svg>
  );
}

/** The Metrics page. */
export function MetricsPage() {
  const { api } = useApp();
  const [query, setQuery] = useState("");
  const [mode, setMode] = useState<"instant" | "range">("instant");
  const [result, setResult] = useState<c.QueryResult | undefined>();
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const end = new Date();
      setResult(
        mode === "instant"
          ? await api.call(c.queryMetrics, { body: { query } })
          : await api.call(c.queryMetricsRange, {
              body: {
                query,
                start: new Date(end.getTime() - 3_600_000).toISOString(),
                end: end.toISOString(),
                stepSeconds: 15,
              },
            }),
      );
    } catch (err) {
      setResult(undefined);
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const rows = Array.isArray(result?.result)
    ? (result.result as { metric?: Record<string, string>; value?: [number, string] }[])
    : [];
  return (
    <main id="main" className="page">
      <h1>Metrics</h1>
      <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Query">
        <label>
          PromQL
          <textarea
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            rows={2}
            required
            maxLength={c.PROMQL_MAX}
          />
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value as "instant" | "range")}>
            <option value="instant">Instant</option>
            <option value="range">Range (last hour)</option>
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Run query
        </button>
        <p className="form-error" role="alert">
          {error}
        </p>
      </form>
      {result?.resultType === "matrix" ? <Chart series={result.result as Series[]} /> : null}
      {result?.resultType === "vector" ? (
        <table className="table" aria-label="Result">
          <thead>
            <tr>
              <th>Series</th>
              <th>Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={labelsOf(r.metric ?? {})} data-testid="metrics-row">
                <td>{labelsOf(r.metric ?? {})}</td>
                <td>{r.value?.[1]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {result && result.resultType !== "vector" && result.resultType !== "matrix" ? (
        <p data-testid="metrics-scalar">{JSON.stringify(result.result)}</p>
      ) : null}
    </main>
  );
}
