/**
 * Fleet API edges without Prometheus data: 503 without prometheus.url, 502 with the controller down, 404 for an
 * unknown node, and who may call what (viewer reads; POST check needs runs:create and CSRF) against a real
 * in-process controller.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, test } from "node:test";
import { Controller, testConfig } from "@svc/controller";
import { startConsole } from "../testing/harness.ts";
import {
  browser,
  createUser,
  type LocalEnv,
  type LocalEnvs,
  localEnvs,
  login,
  w,
} from "../testing/local-env.ts";

let controller: Controller;
let controllerUrl: string;
let deadUrl: string;
let envs: LocalEnvs;
let local: LocalEnv;
const READS = ["/matrix?protocol=udp", "/topology", "/overview", "/nodes/a", "/pairs/a/b?window=1h"];

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise((r) => srv.close(r));
  return port;
}

before(async () => {
  controller = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  controllerUrl = `http://127.0.0.1:${controller.httpPort}`;
  deadUrl = `http://127.0.0.1:${await closedPort()}`;
  envs = await localEnvs();
  // Prometheus is never reached in this file: every answer here is decided before a query runs
  local = await envs.env("local", `prometheus:\n  url: ${deadUrl}\ncontroller:\n  url: ${controllerUrl}\n`);
});

after(async () => {
  await local?.server.stop();
  await envs?.close();
  await controller?.stop();
});

async function getJson(base: string, path: string) {
  const res = await fetch(`${base}/api/v1/fleet${path}`);
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

test("503 metrics_unconfigured on every Prometheus-backed read when prometheus.url is empty", async () => {
  const s = await startConsole(`controller:\n  url: ${controllerUrl}\n`);
  try {
    for (const path of READS.filter((p) => p !== "/topology")) {
      const r = await getJson(s.httpUrl, path);
      assert.equal(r.status, 503, path);
      assert.deepEqual(r.body, {
        error: { code: "metrics_unconfigured", message: "metrics server not configured" },
      });
    }
  } finally {
    await s.stop();
  }
});

test("502 controller_unreachable when the controller is down; 404 unknown_node; 400 bad query", async () => {
  const down = await startConsole(`prometheus:\n  url: ${deadUrl}\ncontroller:\n  url: ${deadUrl}\n`);
  const up = await startConsole(`prometheus:\n  url: ${deadUrl}\ncontroller:\n  url: ${controllerUrl}\n`);
  try {
    for (const path of READS) {
      const r = await getJson(down.httpUrl, path);
      assert.equal(r.status, 502, path);
      assert.equal(r.body.error?.code, "controller_unreachable");
    }
    const unknown = await getJson(up.httpUrl, "/nodes/nowhere");
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body.error?.code, "unknown_node");
    assert.equal((await getJson(up.httpUrl, "/pairs/nowhere/b")).body.error?.code, "unknown_node");
    assert.equal((await getJson(up.httpUrl, "/matrix?protocol=dns")).status, 400);
    // anonymous viewer: reads allowed, a check is not
    const res = await fetch(`${up.httpUrl}/api/v1/fleet/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: "a", destination: "b" }),
    });
    assert.equal(res.status, 403);
  } finally {
    await Promise.all([down.stop(), up.stop()]);
  }
});

test("a Prometheus that does not answer within queryTimeout: 502 metrics_unreachable", async () => {
  const held: import("node:net").Socket[] = [];
  const silent = createServer((sock) => held.push(sock));
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const addr = silent.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const s = await startConsole(
    `prometheus:\n  url: http://127.0.0.1:${port}\n  queryTimeout: 300ms\ncontroller:\n  url: ${controllerUrl}\n`,
  );
  try {
    const r = await getJson(s.httpUrl, "/matrix?protocol=tcp");
    assert.equal(r.status, 502);
    assert.deepEqual(r.body, { error: { code: "metrics_unreachable", message: "metrics server timed out" } });
  } finally {
    await s.stop();
    for (const sock of held) sock.destroy();
    await new Promise((r) => silent.close(r));
  }
});

test("viewer reads the fleet but may not run a check; admin runs it with CSRF, proxied to the controller", async () => {
  await createUser(local, "vera", "viewer");
  const viewer = browser(local.server);
  assert.equal((await login(viewer, "vera", "vera-password-long")).status, 200);
  const read = await viewer.request("GET", "/api/v1/fleet/nodes/nowhere");
  assert.equal(read.status, 404, "past the permission check");
  assert.equal(
    (await w(viewer, "POST", "/api/v1/fleet/check", { source: "a", destination: "b" })).status,
    403,
  );

  const anon = browser(local.server);
  assert.equal((await anon.request("GET", "/api/v1/fleet/topology")).status, 401);

  const noCsrf = await local.admin.request("POST", "/api/v1/fleet/check", {
    body: { source: "a", destination: "b" },
  });
  assert.equal(noCsrf.status, 403);
  assert.equal((noCsrf.body as { error: { code: string } }).error.code, "csrf");

  const bad = await w(local.admin, "POST", "/api/v1/fleet/check", {
    source: "a",
    destination: "b",
    type: "udp",
  });
  assert.equal(bad.status, 400);

  // the controller has no agent on "a": its 404 and text come through as the console's error body
  const proxied = await w(local.admin, "POST", "/api/v1/fleet/check", { source: "a", destination: "b" });
  assert.equal(proxied.status, 404, JSON.stringify(proxied.body));
  const err = (proxied.body as { error: { code: string; message: string } }).error;
  assert.equal(err.code, "not_found");
  assert.match(err.message, /no agent on source node a/);
});

test("POST check: 502 controller_unreachable when the controller is down", async () => {
  const s = await startConsole(`controller:\n  url: ${deadUrl}\nauth:\n  anonymous:\n    role: operator\n`);
  try {
    const res = await fetch(`${s.httpUrl}/api/v1/fleet/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: "a", destination: "b" }),
    });
    assert.equal(res.status, 502);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "controller_unreachable");
  } finally {
    await s.stop();
  }
});
