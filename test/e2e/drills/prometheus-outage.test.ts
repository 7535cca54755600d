/**
 * Fault drill: the console's Prometheus refused, hung, restored. The real prometheus binary scrapes a fake
 * exporter with known series and a real controller holds four registrations (the fleet-routes fixture); an
 * anonymous-mode console reaches Prometheus through a test-owned TCP proxy (`prometheus.queryTimeout: 4s`).
 * The documented answers: routes that query Prometheus directly (node, pair) give 502 `metrics_unreachable`
 * within the query timeout while it is refused or hung, once their last answer is NOW_FRESH_MS old (an answer about
 * now is served that long after it was read); the matrix keeps serving its last snapshot (stale while
 * revalidate, at most MATRIX_STALE_MS old); once the proxy passes again, every route answers 200 and the matrix
 * is recomputed, without restarting the console.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FleetMatrix } from "@svc/contract";
import { NOW_FRESH_MS } from "../../../apps/console/src/fleet/fleet-service.ts";
import {
  type FleetFixture,
  startFleetFixture,
} from "../../../apps/console/src/fleet/testdata/fleet-fixture.ts";
import type { ConsoleServer } from "../../../apps/console/src/server.ts";
import { startConsole } from "../../../apps/console/src/testing/harness.ts";
import { eventually, needsBinary, skipUnless } from "../../helpers/env.ts";
import { type ProxyMode, TcpProxy } from "../../helpers/tcp-proxy.ts";

const PROM = "/usr/bin/prometheus";
const QUERY_TIMEOUT_MS = 4000;
/** a direct query's bound while Prometheus is down: the query timeout plus slack */
const BOUND_MS = QUERY_TIMEOUT_MS + 3000;
const opts = skipUnless(needsBinary(PROM));
let fx: FleetFixture;
let proxy: TcpProxy;
let server: ConsoleServer;

async function get(path: string): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = Date.now();
  const res = await fetch(`${server.httpUrl}${path}`, { signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  const ms = Date.now() - t0;
  if (process.env.DRILL_VERBOSE) console.log(`${proxy.mode} ${path} -> ${res.status} in ${ms} ms`);
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text), ms };
}
const code = (body: unknown) => (body as { error?: { code?: string } }).error?.code;
const generatedAt = (body: unknown) => Date.parse((body as FleetMatrix).generatedAt);

before(async () => {
  if (opts.skip) return;
  fx = await startFleetFixture(PROM);
  const promPort = Number(new URL(fx.prometheusUrl).port);
  proxy = await TcpProxy.start(promPort);
  server = await startConsole(
    `prometheus:\n  url: http://127.0.0.1:${proxy.port}\n  queryTimeout: ${QUERY_TIMEOUT_MS / 1000}s\ncontroller:\n  url: ${fx.controllerUrl}\n`,
  );
  // Prometheus has scraped the exporter: the tcp a->b cell has figures
  await eventually(
    "tcp matrix populated",
    async () => {
      const m = (await get("/api/v1/fleet/matrix?protocol=tcp")).body as FleetMatrix;
      return m.cells?.some((c) => c.source === "a" && c.destination === "b" && c.tier === "failing")
        ? true
        : undefined;
    },
    60_000,
  );
});

after(async () => {
  proxy?.set("pass");
  await server?.stop();
  await proxy?.close();
  await fx?.close();
});

async function assertDown(mode: ProxyMode, snapshotBefore: number): Promise<void> {
  for (const path of ["/api/v1/fleet/nodes/a?protocol=tcp", "/api/v1/fleet/pairs/a/b"]) {
    const r = await get(path);
    assert.equal(r.status, 502, `${mode} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(code(r.body), "metrics_unreachable");
    assert.ok(r.ms < BOUND_MS, `${mode} ${path} took ${r.ms} ms`);
  }
  // the matrix: its last snapshot, never a newer one (no figures could be read)
  const m = await get("/api/v1/fleet/matrix?protocol=tcp");
  assert.equal(m.status, 200, `${mode} matrix: ${m.status} ${JSON.stringify(m.body)}`);
  assert.ok(generatedAt(m.body) <= snapshotBefore, `${mode}: matrix recomputed while Prometheus was down`);
  assert.ok(m.ms < BOUND_MS, `${mode} matrix took ${m.ms} ms`);
}

async function assertRecovered(outageStart: number): Promise<void> {
  for (const path of ["/api/v1/fleet/nodes/a?protocol=tcp", "/api/v1/fleet/pairs/a/b"]) {
    const r = await get(path);
    assert.equal(r.status, 200, `${path}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  // the background refresh waits RETRY_AFTER_FAILURE_MS (10 s) after a failed one
  await eventually(
    "matrix recomputed after the outage",
    async () => {
      const m = await get("/api/v1/fleet/matrix?protocol=tcp");
      return m.status === 200 && generatedAt(m.body) > outageStart ? true : undefined;
    },
    30_000,
  );
}

async function drill(mode: ProxyMode): Promise<void> {
  const before = await get("/api/v1/fleet/matrix?protocol=tcp");
  assert.equal(before.status, 200);
  const outageStart = Date.now();
  proxy.set(mode);
  // the node and pair pages read before the outage are served until they are NOW_FRESH_MS old
  await new Promise((r) => setTimeout(r, NOW_FRESH_MS));
  await assertDown(mode, outageStart);
  proxy.set("pass");
  await assertRecovered(outageStart);
}

test("refused: direct queries 502 at once, matrix served from its snapshot, back after pass", opts, () =>
  drill("refuse"),
);

test(
  "hung: direct queries 502 within the query timeout, matrix from its snapshot, back after pass",
  opts,
  () => drill("hang"),
);
