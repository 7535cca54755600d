/**
 * Test helper: a real Prometheus holding exactly the samples a test writes, at the times it chooses. The samples
 * become TSDB blocks through `promtool tsdb create-blocks-from openmetrics` before Prometheus starts, so tier rules
 * are judged on real PromQL evaluation (irate over counter resets, scrape gaps, a pair with one sample) at a fixed
 * instant, with no waiting for scrapes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startPrometheus, stopProcess } from "@svc/lab";

/** One series: metric name (counters with their `_total`), labels, and [epoch seconds, value] samples. */
export interface BackfillSeries {
  name: string;
  labels: Readonly<Record<string, string>>;
  samples: readonly (readonly [number, number])[];
}

/** A running backfilled Prometheus. */
export interface BackfilledPrometheus {
  url: string;
  close(): Promise<void>;
}

function openMetrics(series: readonly BackfillSeries[]): string {
  const byName = new Map<string, BackfillSeries[]>();
  for (const s of series) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  const lines: string[] = [];
  for (const [name, list] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    const family = name.endsWith("_total") ? name.slice(0, -"_total".length) : name;
    lines.push(`# TYPE ${family} ${name.endsWith("_total") ? "counter" : "gauge"}`);
    for (const s of list) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(",");
      for (const [t, v] of [...s.samples].sort((a, b) => a[0] - b[0]))
        lines.push(`${name}{${labels}} ${v} ${t}`);
    }
  }
  lines.push("# EOF", "");
  return lines.join("\n");
}

/** Writes `series` as blocks and starts `prometheus` on them (127.0.0.1, a free port). */
export async function startBackfilledPrometheus(
  prometheus: string,
  promtool: string,
  series: readonly BackfillSeries[],
): Promise<BackfilledPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "svc-backfill-"));
  const input = join(dir, "series.om");
  writeFileSync(input, openMetrics(series));
  const data = join(dir, "prometheus-data");
  mkdirSync(data);
  const r = spawnSync(promtool, ["tsdb", "create-blocks-from", "openmetrics", input, data], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`promtool failed: ${r.stderr || r.stdout}`);
  const { process, url } = await startPrometheus({
    binary: prometheus,
    dir,
    port: await freePort(),
    targets: [],
    intervalSeconds: 5,
  });
  return {
    url,
    close: async () => {
      await stopProcess(process);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
