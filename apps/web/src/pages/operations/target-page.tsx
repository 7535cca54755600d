/**
 * One target (spec §4.4): unknown and malformed ids alike answer a named 404 card. Health = success share of
 * `svc_external_results_total` for the target over 5 minutes; the history chart is the median of
 * `svc_external_duration_seconds` over the last hour in milliseconds, on a time axis and a millisecond axis, with
 * the latest, lowest and highest median as text (both through the metrics-query routes); its checks below.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useMemo } from "react";
import { ApiError, describeError } from "../../api/client.tsx";
import { type ChartSeries, TimeChart } from "../../components/fleet/time-chart.tsx";
import { useApp } from "../../context.tsx";
import { checksQuery } from "./checks-page.tsx";

/** The PromQL of a target's health (names are [A-Za-z0-9._-], safe inside a label matcher). */
export function healthQuery(name: string): string {
  const sel = `svc_external_results_total{target="${name}"}`;
  return `sum(increase(${sel.replace("}", ',result="success"}')}[5m])) / sum(increase(${sel}[5m]))`;
}

/** One range-query series as Prometheus answers it: [epoch seconds, value as text] pairs. */
interface RangeSeries {
  values?: [number, string][];
}

/**
 * The median check duration over the last hour: a time axis, a millisecond axis, and the latest median and the
 * hour's range as text (the figures a reader wants without hovering).
 */
function DurationChart(p: { result: c.QueryResult }) {
  const points = useMemo(() => {
    const series = p.result.resultType === "matrix" ? (p.result.result as RangeSeries[]) : [];
    return (series[0]?.values ?? []).map(([t, v]) => {
      const n = Number(v);
      return { t, v: Number.isFinite(n) ? n * 1000 : undefined };
    });
  }, [p.result]);
  const series = useMemo<ChartSeries[]>(() => [{ label: "median", color: "#2563eb", points }], [points]);
  const values = points.flatMap((x) => (x.v === undefined ? [] : [x.v]));
  const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
  return (
    <>
      <TimeChart
        title="Median check duration (ms)"
        unit="ms"
        series={series}
        windowSeconds={3600}
        height={220}
      />
      <p data-testid="target-duration-figures">
        {values.length === 0
          ? "No checks in the last hour."
          : `Latest ${ms(values[values.length - 1] ?? 0)} · lowest ${ms(Math.min(...values))} · highest ${ms(Math.max(...values))}`}
      </p>
    </>
  );
}

/** The Target page. */
export function TargetPage() {
  const { api } = useApp();
  const { id } = useParams({ from: "/app/targets/$id" });
  const target = useQuery({
    queryKey: ["target", id],
    queryFn: () => api.call(c.getTarget, { params: { id } }),
    retry: false,
  });
  const checks = useQuery(checksQuery(api));
  const name = target.data?.name;
  const health = useQuery({
    queryKey: ["target-health", name],
    enabled: name !== undefined,
    refetchInterval: 30_000,
    queryFn: () => api.call(c.queryMetrics, { body: { query: healthQuery(name ?? "") } }),
  });
  const history = useQuery({
    queryKey: ["target-history", name],
    enabled: name !== undefined,
    refetchInterval: 60_000,
    queryFn: () => {
      const end = new Date();
      return api.call(c.queryMetricsRange, {
        body: {
          query: `histogram_quantile(0.5, sum by (le) (rate(svc_external_duration_seconds_bucket{target="${name}"}[5m])))`,
          start: new Date(end.getTime() - 3_600_000).toISOString(),
          end: end.toISOString(),
          stepSeconds: 30,
        },
      });
    },
  });
  if (target.error instanceof ApiError && target.error.status === 404)
    return (
      <main id="main" className="page">
        <div className="card">
          <h1>No such target</h1>
          <p>
            There is no target with this id. <Link to="/targets">All targets</Link>
          </p>
        </div>
      </main>
    );
  const value = (health.data?.result as { value?: [number, string] }[] | undefined)?.[0]?.value?.[1];
  const share = value === undefined || value === "NaN" ? undefined : Number(value);
  const t = target.data;
  return (
    <main id="main" className="page">
      <h1>{t ? `Target ${t.name}` : "Target"}</h1>
      {target.error ? <p role="alert">{describeError(target.error)}</p> : null}
      {t ? (
        <>
          <p>
            {t.kind} {t.address}
            {t.port ? `:${t.port}` : ""}
          </p>
          <div className="card">
            <h2>Health (5 minutes)</h2>
            {health.error ? (
              <p className="muted">{describeError(health.error)}</p>
            ) : (
              <p data-testid="target-health">
                {share === undefined ? "No results yet" : `${(share * 100).toFixed(1)} % of checks succeeded`}
              </p>
            )}
          </div>
          <div className="card">
            <h2>Check duration (median, last hour)</h2>
            {history.error ? (
              <p className="muted">{describeError(history.error)}</p>
            ) : history.data ? (
              <DurationChart result={history.data} />
            ) : null}
          </div>
          <div className="card">
            <h2>Checks</h2>
            <ul>
              {(checks.data ?? [])
                .filter((d) => d.targetId === t.id)
                .map((d) => (
                  <li key={d.id}>
                    {d.name} ({d.type}, every {d.intervalSeconds} s{d.enabled ? "" : ", disabled"})
                  </li>
                ))}
            </ul>
          </div>
        </>
      ) : null}
    </main>
  );
}
