// npm run bench -- matrix-render [sizes...]: GET /api/v1/fleet/matrix?protocol=tcp for synthetic fleets of 50,
// 200 and 500 agents. Per size: a real controller with N registrations, a fake exporter serving N*(N-1) series
// per family (synthetic-fleet.ts) scraped by the real prometheus binary until three scrapes landed, and a console
// in anonymous mode serving the built web app. BENCH_DRY=1 prints without appending to docs/benchmarks.md.
// Reports: the fleet-wide compute (PromQL + join) of a console that has no snapshot yet; the first request to a
// console started before the fleet (it warms the TCP matrix at start and keeps viewed matrices fresh); the median
// of 5 further requests; response bytes (plain and gzip); and, in headless Chromium, the median of 3 first loads of
// /matrix?protocol=tcp: navigation start to the `svc:matrix-painted` mark (first paint of the matrix), and the
// render share of it (the API response's end to that mark: JSON parse, indexing, drawing, one frame).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { freePort, promQuery, startPrometheus, stopProcess } from "@svc/lab";
import type { FleetMatrix } from "../../apps/console/src/api/fleet-types.ts";
import { parseConsoleConfig } from "../../apps/console/src/config/load.ts";
import { FleetService } from "../../apps/console/src/fleet/fleet-service.ts";
import { startExporter } from "../../apps/console/src/fleet/testdata/exposition.ts";
import { ensureWebBuilt, launchChromium, startWebConsole } from "../../test/e2e/web-harness.ts";
import { median, record, table } from "../lib/report.ts";
import { firstPaints } from "./first-paint.ts";
import { fleetController, fleetExposition } from "./synthetic-fleet.ts";

const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((x) => x > 1);
const sizes = SIZES.length > 0 ? SIZES : [50, 200, 500];
const RUNS = 5;
const PAINTS = 3;
const SCRAPE_S = 10;

interface Row {
  n: number;
  compute: number;
  cold: number;
  paint: number;
  render: number;
  paintSpread: string;
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
  const console_ = await startWebConsole(yaml);
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
    const unwarmed = new FleetService(parseConsoleConfig(yaml, {}).config);
    const c0 = performance.now();
    await unwarmed.matrix("tcp");
    const compute = performance.now() - c0;
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
    const browser = await launchChromium();
    const paints = await firstPaints(browser, `${console_.httpUrl}/matrix?protocol=tcp`, PAINTS).finally(() =>
      browser.close(),
    );
    return {
      n,
      compute,
      cold,
      paint: median(paints.map((x) => x.paint)),
      render: median(paints.map((x) => x.render)),
      paintSpread: `${Math.min(...paints.map((x) => x.paint)).toFixed(0)}-${Math.max(...paints.map((x) => x.paint)).toFixed(0)}`,
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

ensureWebBuilt();
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
    "compute ms (no snapshot)",
    "first request ms",
    "API median ms (min-max)",
    "API x ref",
    "response",
    "gzip (level 1)",
    "nodata cells",
    "Chromium first paint ms (min-max)",
    "of which render ms",
  ],
  rows.map((r) => [
    r.n,
    r.cells,
    r.series,
    r.compute.toFixed(0),
    r.cold.toFixed(0),
    `${r.ms.toFixed(0)} (${r.spread})`,
    (r.ms / ref).toFixed(1),
    mb(r.bytes),
    mb(r.gzip),
    r.nodata,
    `${r.paint.toFixed(0)} (${r.paintSpread})`,
    r.render.toFixed(0),
  ]),
);
const report = process.env.BENCH_DRY === "1" ? (_t: string, b: string) => console.log(b) : record;
report(
  "matrix-render",
  `GET /api/v1/fleet/matrix?protocol=tcp against the real prometheus (scrape every ${SCRAPE_S}s, 3+ scrapes) and a ` +
    `real controller; console in-process. Compute: one fleet-wide refresh by a console with no snapshot (the ` +
    `PromQL and the join). First request: the first GET to a console started with the fleet (it warms the TCP ` +
    `matrix at start and keeps viewed matrices fresh in the background). API median: the next ${RUNS} GETs. ` +
    `Chromium (headless, 1280x900, fresh context each): median of ${PAINTS} loads of /matrix?protocol=tcp, ` +
    `navigation start to the matrix's first paint; render: from the API response's end to that paint. ` +
    `Targets at 500 nodes: API < 1 s, render < 500 ms.\n\n${body}`,
);
