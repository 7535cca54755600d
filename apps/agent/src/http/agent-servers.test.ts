import assert from "node:assert/strict";
import { test } from "node:test";
import { ProbeMetrics } from "../metrics/probe-metrics.ts";
import { GaugeFamily } from "../metrics/store/gauge.ts";
import { MetricRegistry } from "../metrics/store/registry.ts";
import { createAgentHttpServers } from "./agent-servers.ts";

async function get(port: number, path: string, host = "127.0.0.1") {
  const res = await fetch(`http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

function setup(host?: string) {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" } });
  metrics.recordTcp({ nodeName: "node-b", zone: "z2" }, { ok: true, connectMs: 1 });
  let ready = false;
  const servers = createAgentHttpServers({
    httpPort: 0,
    metricsPort: 0,
    ...(host ? { host } : {}),
    registry: metrics.registry,
    isReady: () => ready,
    version: { version: "2.5.0", commit: "abc1234" },
  });
  return { servers, setReady: (v: boolean) => (ready = v) };
}

test("httpPort serves health, readiness, metrics and version", async () => {
  const { servers, setReady } = setup("127.0.0.1");
  await servers.start();
  try {
    const port = servers.httpPort;
    assert.notEqual(port, 0);
    assert.deepEqual(await get(port, "/healthz"), {
      status: 200,
      type: "text/plain; charset=utf-8",
      body: "ok",
    });
    const notReady = await get(port, "/readyz");
    assert.equal(notReady.status, 503);
    assert.equal(notReady.body, "not ready");
    assert.match(notReady.type, /^text\/plain/);
    setReady(true);
    assert.deepEqual(await get(port, "/readyz"), {
      status: 200,
      type: "text/plain; charset=utf-8",
      body: "ok",
    });
    const m = await get(port, "/metrics");
    assert.equal(m.status, 200);
    assert.match(m.type, /^text\/plain; version=0.0.4/);
    assert.match(m.body, /^svc_tcp_results_total\{.*destination_node="node-b".*\} 1$/m);
    const v = await get(port, "/api/v1/version");
    assert.equal(v.status, 200);
    assert.match(v.type, /^application\/json/);
    assert.deepEqual(JSON.parse(v.body), { version: "2.5.0", commit: "abc1234" });
    assert.equal((await get(port, "/nope")).status, 404);
  } finally {
    await servers.stop();
  }
});

test("metricsPort serves metrics, health and readiness but not the API", async () => {
  const { servers, setReady } = setup("127.0.0.1");
  await servers.start();
  try {
    const port = servers.metricsPort;
    assert.notEqual(port, servers.httpPort);
    assert.match((await get(port, "/metrics")).body, /svc_tcp_results_total/);
    assert.equal((await get(port, "/healthz")).body, "ok");
    assert.equal((await get(port, "/readyz")).status, 503);
    setReady(true);
    assert.equal((await get(port, "/readyz")).status, 200);
    assert.equal((await get(port, "/api/v1/version")).status, 404);
  } finally {
    await servers.stop();
  }
});

test("default bind answers on IPv4 and IPv6 loopback; stop releases the ports", async () => {
  const { servers } = setup();
  await servers.start();
  const port = servers.httpPort;
  assert.equal((await get(port, "/healthz", "127.0.0.1")).body, "ok");
  assert.equal((await get(port, "/healthz", "::1")).body, "ok");
  await servers.stop();
  await servers.stop();
  await assert.rejects(get(port, "/healthz"));
});

test("a taken port fails start and leaves nothing bound", async () => {
  const first = setup("127.0.0.1");
  await first.servers.start();
  try {
    const second = createAgentHttpServers({
      httpPort: 0,
      metricsPort: first.servers.metricsPort,
      host: "127.0.0.1",
      registry: new ProbeMetrics({ prefix: "svc", source: { nodeName: "x", zone: "" } }).registry,
      isReady: () => true,
      version: { version: "2.5.0", commit: "abc1234" },
    });
    await assert.rejects(second.start(), /EADDRINUSE/);
    await second.stop();
  } finally {
    await first.servers.stop();
  }
});

test("wire details: HEAD, query strings, 404 and 500 bodies", async () => {
  const failing = new MetricRegistry();
  failing.register(
    new GaugeFamily({
      name: "svc_failing",
      help: "a collect that throws",
      collect() {
        throw new Error("boom");
      },
    }),
  );
  const servers = createAgentHttpServers({
    httpPort: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    registry: failing,
    isReady: () => true,
    version: { version: "2.5.0", commit: "abc1234" },
  });
  await servers.start();
  try {
    const base = `http://127.0.0.1:${servers.httpPort}`;
    const head = await fetch(`${base}/healthz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "2");
    assert.equal(await head.text(), "");
    assert.equal((await get(servers.httpPort, "/readyz?verbose=1")).body, "ok");
    const missing = await fetch(`${base}/nope?a=b`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(await missing.json(), {
      message: "Route GET:/nope?a=b not found",
      error: "Not Found",
      statusCode: 404,
    });
    assert.equal((await fetch(`${base}/healthz`, { method: "POST", body: "{}" })).status, 404);
    const broken = await fetch(`${base}/metrics`);
    assert.equal(broken.status, 500);
    assert.deepEqual(await broken.json(), {
      statusCode: 500,
      error: "Internal Server Error",
      message: "boom",
    });
  } finally {
    await servers.stop();
  }
});

test("/metrics streams the whole exposition, chunk by chunk", async () => {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "a", zone: "z1" } });
  for (let i = 0; i < 300; i++) {
    const peer = { nodeName: `peer-${i}`, zone: `z${i % 3}` };
    metrics.recordTcp(peer, { ok: i % 7 !== 0, connectMs: i / 10, totalMs: i / 5 });
    metrics.recordUdp(peer, {
      ok: true,
      sent: 3,
      received: 3,
      lossRatio: 0,
      rttsMs: [0.1, 0.2, i],
      jitterMs: 1,
    });
    metrics.recordIcmp(peer, { ok: true, rtts: [0.05 * i], lossRatio: 0 });
  }
  const servers = createAgentHttpServers({
    httpPort: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    registry: metrics.registry,
    isReady: () => true,
    version: { version: "2.5.0", commit: "abc1234" },
  });
  await servers.start();
  try {
    const res = await fetch(`http://127.0.0.1:${servers.metricsPort}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), metrics.registry.contentType);
    const body = await res.text();
    assert.ok(body.length > 500_000, `exposition of ${body.length} bytes`);
    assert.equal(body, await metrics.registry.metrics());
    const head = await fetch(`http://127.0.0.1:${servers.metricsPort}/metrics`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  } finally {
    await servers.stop();
  }
});
