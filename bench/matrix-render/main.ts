// npm run bench -- matrix-render [sizes...]: GET /api/v1/fleet/matrix?protocol=tcp for synthetic fleets of 50,
// 200 and 500 agents. Per size: a real controller with N registrations, a fake exporter serving N*(N-1) series
// per family (synthetic-fleet.ts) scraped by the real prometheus binary until three scrapes landed, and a console
// in anonymous mode serving the built web app. BENCH_DRY=1 prints without appending to docs/benchmarks.md.
// Reports: the fleet-wide compute (PromQL + join) of a console that has no snapshot yet; once a console started
// after that has caught up (it warms the TCP matrix at start and keeps viewed matrices fresh), the median
// of 5 requests of the grid layout the web app uses and the age of the snapshot they were served; response
// bytes (grid plain and gzip, cells layout plain); and, in headless
// Chromium (prometheus paused), the median of 3 first loads of
// /matrix?protocol=tcp: navigation start to the `svc:matrix-painted` mark (first paint of the matrix), and the
// render share of it (the API response's end to that mark: JSON parse, indexing, drawing, one frame).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { FleetMatrix } from "@svc/contract";
import { freePort, promQuery, startPrometheus, stopProcess } from "@svc/lab";
import { type FleetMatrixGrid, fromGrid, gridTier } from "@svc/matrix-grid";
import type { TopologySnapshot } from "@svc/protocol";
import { parseConsoleConfig } from "../../apps/console/src/config/load.ts";
import { fleetFigures } from "../../apps/console/src/fleet/figures.ts";
import { FleetService } from "../../apps/console/src/fleet/fleet-service.ts";
import { expectedPairs, fleetView } from "../../apps/console/src/fleet/fleet-view.ts";
import { buildMatrix } from "../../apps/console/src/fleet/matrix.ts";
import { PrometheusClient } from "../../apps/console/src/fleet/prometheus-client.ts";
import {
  type FleetReads,
  rawReads,
  recordedReads,
  recordingRulesYaml,
} from "../../apps/console/src/fleet/recording-rules.ts";
import { startExporter } from "../../apps/console/src/fleet/testdata/exposition.ts";
import { ensureWebBuilt, launchChromium, startWebConsole } from "../../test/e2e/web-harness.ts";
import { median, record, table } from "../lib/report.ts";
import { firstPaints } from "./first-paint.ts";
import { fleetController, fleetExposition, nodeName } from "./synthetic-fleet.ts";

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
  raw: number;
  recorded: number;
  evalNow: number;
  evalWindow: number;
  red: number;
  age: number;
  paint: number;
  render: number;
  paintSpread: string;
  cells: number;
  series: number;
  ms: number;
  spread: string;
  bytes: number;
  gzip: number;
  cellsBytes: number;
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
  // agents as they are since issue 35: their pair state exported, the rules without the `now` group
  const { render, series, outage } = fleetExposition(n, { state: true });
  const exporter = await startExporter(render);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-matrix-"));
  const prom = await startPrometheus({
    binary: "/usr/bin/prometheus",
    dir,
    port: await freePort(),
    targets: [{ job: "agents", targets: [exporter.target] }],
    intervalSeconds: SCRAPE_S,
    rules: [
      { name: "svc-rules.yml", yaml: recordingRulesYaml("svc", SCRAPE_S, Math.max(15, SCRAPE_S), false) },
    ],
  });
  const yaml = `prometheus:\n  url: ${prom.url}\ncontroller:\n  url: http://127.0.0.1:${controller.httpPort}\n`;
  let console_: Awaited<ReturnType<typeof startWebConsole>> | undefined;
  try {
    await until(
      `${n} nodes: three scrapes stored`,
      async () =>
        exporter.scrapes() >= 3 &&
        (await promQuery(prom.url, "scrape_samples_scraped"))[0]?.value === series &&
        (await promQuery(prom.url, "count(svc_tcp_results_total)"))[0]?.value !== undefined,
      600_000,
    );
    await new Promise((r) => setTimeout(r, SCRAPE_S * 1000));
    // both rule groups evaluated over the stored scrapes
    await until(
      `${n} nodes: recorded series`,
      async () =>
        (await promQuery(prom.url, "count(svc:tcp_present_counts)"))[0]?.value === n &&
        (await promQuery(prom.url, "count(svc:fleet_rules_info)"))[0]?.value === 1,
      600_000,
    );
    const client = new PrometheusClient({
      url: prom.url,
      queryTimeoutMs: 120_000,
      maxResponseBytes: 1 << 26,
    });
    const refresh = async (reads: FleetReads): Promise<number> => {
      const t0 = performance.now();
      const topo = await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/topology`);
      const view = fleetView((await topo.json()) as TopologySnapshot);
      buildMatrix(
        view,
        "tcp",
        await fleetFigures(client, "svc", "tcp", expectedPairs(view, "tcp"), reads),
        new Date(),
      );
      return performance.now() - t0;
    };
    const raw = await refresh(rawReads("svc", "tcp"));
    const recordedTimes: number[] = [];
    for (let i = 0; i < 3; i++) recordedTimes.push(await refresh(recordedReads("svc", "tcp", false)));
    const recorded = median(recordedTimes);
    const evals = await ruleEvalSeconds(prom.url);
    const unwarmed = new FleetService(parseConsoleConfig(yaml, {}).config);
    const c0 = performance.now();
    await unwarmed.matrix("tcp");
    const compute = performance.now() - c0;
    // started now (it warms the TCP matrix at once), not earlier: two fleet-wide computes at a time would share
    // prometheus and time out at 500 nodes on 2 cores
    console_ = await startWebConsole(yaml);
    const url = `${console_.httpUrl}/api/v1/fleet/matrix?protocol=tcp`;
    // the console computed its first snapshot before the fleet's series existed; measure once it has caught up
    await until(
      `${n} nodes: the console serves a matrix with data`,
      async () => {
        const res = await fetch(url);
        const m = (await res.json()) as FleetMatrix;
        return res.status === 200 && m.cells.length > 0 && m.cells.every((c) => c.tier !== "nodata");
      },
      600_000,
    );
    // the layout the web app asks for (grid), then the cells layout for its size
    const times: number[] = [];
    const ages: number[] = [];
    let text = "";
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}&layout=grid`);
      text = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`matrix ${res.status}: ${text.slice(0, 300)}`);
      ages.push(Date.now() - Date.parse((JSON.parse(text) as FleetMatrixGrid).generatedAt));
    }
    const m = fromGrid(JSON.parse(text) as FleetMatrixGrid);
    const cellsText = await (await fetch(url)).text();
    // The browser is timed with prometheus paused (SIGSTOP): on this one 2-core machine its 1M-series ingest and
    // the console's background refreshes would otherwise take the CPU from Chromium, which a viewer's own
    // machine does not share. The page is served from the console's snapshot either way.
    prom.process.child.kill("SIGSTOP");
    const browser = await launchChromium();
    const paints = await firstPaints(browser, `${console_.httpUrl}/matrix?protocol=tcp`, PAINTS).finally(
      () => {
        prom.process.child.kill("SIGCONT");
        return browser.close();
      },
    );
    // time to red at this size: node-0001 -> node-0002 goes down from the next scrape; the console's matrix API
    // (the snapshot the Matrix page reads and the matrix topic pushes) is polled until the cell is failing
    outage(1, 2);
    const t0 = performance.now();
    let red = Number.POSITIVE_INFINITY;
    while (performance.now() - t0 < 300_000) {
      const g = (await (await fetch(`${url}&layout=grid`)).json()) as FleetMatrixGrid;
      if (gridTier(g, nodeName(1), nodeName(2)) === "failing") {
        red = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return {
      n,
      compute,
      red,
      raw,
      recorded,
      evalNow: evals.now,
      evalWindow: evals.window,
      age: median(ages),
      paint: median(paints.map((x) => x.paint)),
      render: median(paints.map((x) => x.render)),
      paintSpread: `${Math.min(...paints.map((x) => x.paint)).toFixed(0)}-${Math.max(...paints.map((x) => x.paint)).toFixed(0)}`,
      cells: m.length,
      series,
      ms: median(times),
      spread: `${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)}`,
      bytes: Buffer.byteLength(text),
      gzip: gzipSync(text, { level: 1 }).length,
      cellsBytes: Buffer.byteLength(cellsText),
      nodata: m.filter((c) => c.tier === "nodata").length,
    };
  } finally {
    await console_?.stop();
    await stopProcess(prom.process);
    await exporter.close();
    await controller.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The last evaluation time (s) of the two rule groups, the median of 3 reads one evaluation apart. */
async function ruleEvalSeconds(url: string): Promise<{ now: number; window: number }> {
  const now: number[] = [];
  const window: number[] = [];
  for (let i = 0; i < 3; i++) {
    const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as {
      data: { groups: { name: string; evaluationTime: number }[] };
    };
    now.push(body.data.groups.find((g) => g.name.endsWith("-now"))?.evaluationTime ?? 0);
    for (const g of body.data.groups) if (!g.name.endsWith("-now")) window.push(g.evaluationTime);
    await new Promise((r) => setTimeout(r, Math.max(15, SCRAPE_S) * 1000));
  }
  return { now: median(now), window: median(window) };
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
    "refresh ms raw / recorded",
    "rule eval s: now / window",
    "outage -> failing in the matrix API s",
    "snapshot age s (median)",
    "API median ms (min-max), grid",
    "API x ref",
    "response: grid (gzip) / cells",
    "nodata cells",
    "Chromium first paint ms (min-max)",
    "of which render ms",
  ],
  rows.map((r) => [
    r.n,
    r.cells,
    r.series,
    r.compute.toFixed(0),
    `${r.raw.toFixed(0)} / ${r.recorded.toFixed(0)}`,
    `${r.evalNow.toFixed(2)} / ${r.evalWindow.toFixed(2)}`,
    (r.red / 1000).toFixed(1),
    (r.age / 1000).toFixed(1),
    `${r.ms.toFixed(0)} (${r.spread})`,
    (r.ms / ref).toFixed(1),
    `${mb(r.bytes)} (${mb(r.gzip)}) / ${mb(r.cellsBytes)}`,
    r.nodata,
    `${r.paint.toFixed(0)} (${r.paintSpread})`,
    r.render.toFixed(0),
  ]),
);
const report = process.env.BENCH_DRY === "1" ? (_t: string, b: string) => console.log(b) : record;
report(
  "matrix-render",
  `GET /api/v1/fleet/matrix?protocol=tcp against the real prometheus (scrape every ${SCRAPE_S}s, 3+ scrapes) and a ` +
    `real controller; console in-process. The synthetic agents export their pair state (svc_peer_problem_ratio, ` +
    `svc_agent_info; issue 35) and the rules leave out the \`now\` group (its column reads 0). Compute: one fleet-wide refresh by a console with no snapshot (the ` +
    `PromQL and the join, reading the recording rules' series since Prometheus holds them). Refresh raw / ` +
    `recorded: the same fleet-wide read from raw series and from the recorded ones (median of 3); rule eval: ` +
    `Prometheus's own evaluation time of the two rule groups (now: every ${SCRAPE_S}s; window: every ` +
    `${Math.max(15, SCRAPE_S)}s), median of 3. Outage -> failing: one pair's exporter series turn into a total ` +
    `outage from the next scrape; the console's matrix API polled every 250 ms until the cell is failing (goal: ` +
    `scrape + 2 s, here ${SCRAPE_S + 2} s). API median: ${RUNS} GETs of the grid layout (what the web app asks for; the cells layout's size is shown too) to a console started after that compute (it warms the TCP ` +
    `matrix at start and keeps viewed matrices fresh in the background), once its snapshot holds the fleet's ` +
    `data; snapshot age: how old the figures served were. Chromium (headless, 1280x900, fresh context each; ` +
    `prometheus paused so its ingest does not share the 2 cores with the browser): median of ${PAINTS} loads of /matrix?protocol=tcp, ` +
    `navigation start to the matrix's first paint; render: from the API response's end to that paint. ` +
    `Targets at 500 nodes: API < 1 s, render < 500 ms.\n\n${body}`,
);
