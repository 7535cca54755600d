/**
 * A time-series line chart (uPlot, design.md §3a): one x axis of epoch seconds, one line per series, gaps where a
 * series has no point. Width follows the container. The figures also exist as text elsewhere on the page.
 */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** One line. */
export interface ChartSeries {
  label: string;
  color: string;
  /** points by epoch seconds */
  points: { t: number; v: number | undefined }[];
}

/** Aligns series on the union of their timestamps (uPlot's data shape). */
export function alignSeries(series: readonly ChartSeries[]): [number[], ...(number | null)[][]] {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.t)))].sort((a, b) => a - b);
  const ys = series.map((s) => {
    const at = new Map(s.points.map((p) => [p.t, p.v]));
    return xs.map((x) => at.get(x) ?? null);
  });
  return [xs, ...ys];
}

/**
 * The chart; `unit` formats the y axis ("ms" values are already in milliseconds, "%" in percent). `windowSeconds`
 * fixes the x axis to the last that many seconds (a few points then sit where they belong in time).
 */
export function TimeChart(p: {
  title: string;
  unit: string;
  series: ChartSeries[];
  windowSeconds: number;
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data = alignSeries(p.series) as uPlot.AlignedData;
    const chart = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height: p.height ?? 180,
        scales: {
          x: {
            time: true,
            range: (): uPlot.Range.MinMax => {
              const to = Math.max(Date.now() / 1000, ...data[0]);
              return [to - p.windowSeconds, to];
            },
          },
        },
        series: [
          {},
          ...p.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false })),
        ],
        axes: [{}, { values: (_u: uPlot, vals: number[]) => vals.map((v) => `${v} ${p.unit}`), size: 70 }],
      },
      data,
      el,
    );
    const ro = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(240, el.clientWidth), height: p.height ?? 180 }),
    );
    ro.observe(el);
    return () => {
      ro.disconnect();
      chart.destroy();
    };
  }, [p.series, p.unit, p.height, p.windowSeconds]);
  const empty = p.series.every((s) => s.points.every((x) => x.v === undefined));
  return (
    <figure className="chart" aria-label={p.title}>
      <figcaption>
        <strong>{p.title}</strong>
        {empty ? <span className="muted small"> — no points in this window</span> : null}
      </figcaption>
      <div ref={box} />
    </figure>
  );
}
