// npm run bench -- matrix-render [sizes...]: GET /api/v1/fleet/matrix?protocol=tcp for synthetic fleets of 50,
// 200 and 500 agents. Per size: a real controller with N registrations, a fake exporter serving N*(N-1) series
// per family (synthetic-fleet.ts) scraped by the real prometheus binary until three scrapes landed, and a console
// in anonymous mode. BENCH_DRY=1 prints without appending to docs/benchmarks.md.
// Reports the median of 5 requests, response bytes (plain and gzip) and leaves the browser
// "time to first paint" column to the web app's benchmark (apps/web Matrix page).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { freePort, promQuery, startPrometheus, stopProcess } from "@svc/lab";
import type { FleetMatrix } from "../../apps/console/src/api/fleet-types.ts";
import { startExporter } from "../../apps/console/src/fleet/testdata/exposition.ts";
import { startConsole } from "../../apps/console/src/testing/harness.ts";
import { median, record, table } from "../lib/report.ts";
import { fleetController, fleetExposition } from "./synthetic-fleet.ts";

const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((x) => x > 1);
const sizes = SIZES.length > 0 ? SIZES : [50, 200, 500];
const RUNS = 5;
const SCRAPE_S = 10;
const PAINT_SLOT = "(apps/web: P2)";

interface Row {
  n: number;
  cold: number;
  cells: number;
  series: number;
  ms: number;
  spread: string;
  bytes: number;
  gzip: number;
  nodata: number;
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function measure(n: number): Promise<Row> {
  const controller = await fleetController(n);
  const { render, series } = fleetExposition(n);
  const exporter = await startExporter(render);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-matrix-"));
  const prom = await startPrometheus({
    binary: "/usr/bin/prometheus",
    dir,
    port: await freePort(),
    targets: [{ job: "agents", targets: [exporter.target] }],
    intervalSeconds: SCRAPE_S,
  });
  const yaml = `prometheus:\n  url: ${prom.url}\ncontroller:\n  url: http://127.0.0.1:${controller.httpPort}\n`;
  const console_ = await startConsole(yaml);
  try {
    await until(
      `${n} nodes: three scrapes stored`,
      async () =>
        exporter.scrapes() >= 3 &&
        (await promQuery(prom.url, "scrape_samples_scraped"))[0]?.value === series &&
        (await promQuery(prom.url, "count(svc_tcp_results_total)"))[0]?.value !== undefined,
      180_000,
    );
    await new Promise((r) => setTimeout(r, SCRAPE_S * 1000));
    const url = `${console_.httpUrl}/api/v1/fleet/matrix?protocol=tcp`;
    const t0 = performance.now();
    const first = await fetch(url);
    const cold = performance.now() - t0;
    if (first.status !== 200)
      throw new Error(`matrix ${first.status}: ${(await first.text()).slice(0, 300)}`);
    await first.text();
    const times: number[] = [];
    let text = "";
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(url);
      text = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`matrix ${res.status}: ${text.slice(0, 300)}`);
    }
    const m = JSON.parse(text) as FleetMatrix;
    return {
      n,
      cold,
      cells: m.cells.length,
      series,
      ms: median(times),
      spread: `${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)}`,
      bytes: Buffer.byteLength(text),
      gzip: gzipSync(text, { level: 1 }).length,
      nodata: m.cells.filter((c) => c.tier === "nodata").length,
    };
  } finally {
    await console_.stop();
    await stopProcess(prom.process);
    await exporter.close();
    await controller.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const n of sizes) {
  rows.push(await measure(n));
  console.log(`measured ${n} nodes`);
}
const ref = rows[0]?.ms ?? 1;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const body = table(
  [
    "nodes",
    "cells",
    "series scraped",
    "cold ms",
    "warm median ms (min-max)",
    "warm x ref",
    "response",
    "gzip (level 1)",
    "nodata cells",
    "first paint ms",
  ],
  rows.map((r) => [
    r.n,
    r.cells,
    r.series,
    r.cold.toFixed(0),
    `${r.ms.toFixed(0)} (${r.spread})`,
    (r.ms / ref).toFixed(1),
    mb(r.bytes),
    mb(r.gzip),
    r.nodata,
    PAINT_SLOT,
  ]),
);
const report = process.env.BENCH_DRY === "1" ? (_t: string, b: string) => console.log(b) : record;
report(
  "matrix-render (API half)",
  `GET /api/v1/fleet/matrix?protocol=tcp, median of ${RUNS}, console in-process against the real prometheus ` +
    `(scrape every ${SCRAPE_S}s, 3+ scrapes) and a real controller. Cold: the first request, which runs the PromQL; warm: the next ${RUNS}, served from the matrix snapshot (refreshed in the background when older than 2 s, or twice its compute time). Target at 500 nodes: < 1 s.\n\n${body}`,
);
