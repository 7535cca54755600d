import assert from "node:assert/strict";
import { test } from "node:test";
import { Controller } from "./controller.ts";
import { RawAgentClient, registerRequest } from "./testing/raw-client.ts";
import { testConfig } from "./testing/test-config.ts";
import { waitUntil } from "./testing/wait-until.ts";

const version = { version: "2.5.0", commit: "abc" };
const hosts = { grpcHost: "127.0.0.1", httpHost: "127.0.0.1" };

test("/readyz answers 503 until the gRPC server is bound, then 200", async () => {
  const c = new Controller({ config: testConfig(), version, ...hosts });
  try {
    await c.startHttp();
    for (const port of [c.httpPort, c.metricsPort]) {
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 503);
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    }
    await c.startGrpc();
    assert.ok(c.grpcPort > 0);
    for (const port of [c.httpPort, c.metricsPort]) {
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    }
  } finally {
    await c.stop();
  }
});

test("a standby answers 503 `not the leader` as text/plain on leader-only routes only", async () => {
  let leader = false;
  const c = new Controller({ config: testConfig(), version, ...hosts, isLeader: () => leader });
  await c.start();
  try {
    const base = `http://127.0.0.1:${c.httpPort}`;
    const res = await fetch(`${base}/api/v1/topology`);
    assert.equal(res.status, 503);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await res.text(), "not the leader");
    assert.equal((await fetch(`${base}/api/v1/version`)).status, 200);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const metrics = await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text();
    assert.match(metrics, /^svc_controller_leader 0$/m);
    leader = true;
    assert.equal((await fetch(`${base}/api/v1/topology`)).status, 200);
  } finally {
    await c.stop();
  }
});

test("agents without heartbeat are evicted after controller.agentTtl and leave the topology", async () => {
  const c = new Controller({ config: testConfig({ agentTtl: 300 }), version, ...hosts });
  await c.start();
  const raw = new RawAgentClient(c.grpcPort);
  try {
    await raw.register(registerRequest({ node_name: "silent", advertise_address: "198.18.0.40" }));
    const topo = async () =>
      (
        (await (await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/topology`)).json()) as {
          agents: unknown[];
        }
      ).agents.length;
    assert.equal(await topo(), 1);
    await waitUntil(async () => (await topo()) === 0, "eviction");
    assert.equal(await raw.heartbeat("silent"), false);
  } finally {
    raw.close();
    await c.stop();
  }
});

test("applyConfig changes the agent TTL live", async () => {
  const c = new Controller({ config: testConfig({ agentTtl: 60_000 }), version, ...hosts });
  await c.start();
  const raw = new RawAgentClient(c.grpcPort);
  try {
    await raw.register(registerRequest({ node_name: "n1", advertise_address: "198.18.0.41" }));
    c.applyConfig(testConfig({ agentTtl: 200 }));
    assert.equal(c.registry.ttlMs, 200);
    await waitUntil(() => c.registry.size === 0, "eviction under the new TTL");
  } finally {
    raw.close();
    await c.stop();
  }
});

test("open WatchPeers streams are counted", async () => {
  const c = new Controller({ config: testConfig(), version, ...hosts });
  await c.start();
  const raw = new RawAgentClient(c.grpcPort);
  try {
    const watch = raw.watch("w1");
    await watch.waitFor(() => true);
    const text = await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text();
    assert.match(text, /^svc_controller_grpc_connections 1$/m);
    assert.match(text, /^svc_controller_peer_updates_total [1-9]\d*$/m);
    watch.cancel();
  } finally {
    raw.close();
    await c.stop();
  }
});
