import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

let controller: Controller;
let raw: RawAgentClient;
let base: string;
// the warm-up clock (virtual): tests start past the warm-up unless they say otherwise
let clock = 0;

before(async () => {
  controller = new Controller({
    config: testConfig({ metricsPrefix: "lab" }),
    version: { version: "2.5.0", commit: "0123abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    now: () => clock,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
  base = `http://127.0.0.1:${controller.httpPort}`;
  // warming up right after start, even with nobody registered yet: an empty topology is not news
  const first = (await (await fetch(`${base}/api/v1/topology`)).json()) as Record<string, unknown>;
  assert.equal(first.warmingUp, true);
  assert.deepEqual(first.agents, []);
  // still warming 1 ms before one agentTtl has passed; then the same snapshot without the flag
  clock += controller.registry.ttlMs - 1;
  assert.equal(
    ((await (await fetch(`${base}/api/v1/topology`)).json()) as Record<string, unknown>).warmingUp,
    true,
  );
  clock += 1;
  assert.equal("warmingUp" in ((await (await fetch(`${base}/api/v1/topology`)).json()) as object), false);
});

after(async () => {
  raw.close();
  await controller.stop();
});

test("topology JSON: omission rules, verbatim capabilities, RFC 3339 timestamp, no probePlan", async () => {
  await raw.register(
    registerRequest({
      node_name: "new-node",
      agent_id: "new-id",
      advertise_address: "198.18.0.30",
      zone: "zone-a",
      labels: { "svc.io/host-network": "true" },
      capabilities: ["plane:tcp", "plane:mtr", "external-checks"],
      http_port: 8080,
      udp_port: 9090,
      metrics_port: 9091,
      version: "2.5.0",
    }),
  );
  // An agent older than 1.6.0: no id, no zone, no labels, no capabilities, no ports.
  await raw.register(registerRequest({ node_name: "old-node", advertise_address: "198.18.0.31" }));
  await raw.register(
    registerRequest({
      node_name: "bare-host",
      agent_id: "ext-1",
      advertise_address: "198.18.0.32",
      zone: "zone-a",
      labels: { "svc.io/external": "true" },
      capabilities: ["plane:icmp", "plane:mtr"],
      http_port: 8080,
    }),
  );

  const res = await fetch(`${base}/api/v1/topology`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ["agents", "nodes", "timestamp"]);
  const ts = String(body.timestamp);
  assert.match(ts, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  assert.ok(Math.abs(Date.parse(ts) - Date.now()) < 60_000);
  assert.deepEqual(body.nodes, [
    { name: "bare-host", zone: "external", ready: true },
    { name: "new-node", zone: "zone-a", ready: true },
    { name: "old-node", zone: "", ready: true },
  ]);
  assert.deepEqual(body.agents, [
    {
      id: "ext-1",
      nodeName: "bare-host",
      podIP: "198.18.0.32",
      zone: "external",
      labels: { "svc.io/external": "true" },
      capabilities: ["plane:icmp", "plane:mtr"],
      httpPort: 8080,
    },
    {
      id: "new-id",
      nodeName: "new-node",
      podIP: "198.18.0.30",
      zone: "zone-a",
      labels: { "svc.io/host-network": "true" },
      capabilities: ["plane:tcp", "plane:mtr", "external-checks"],
      httpPort: 8080,
      udpPort: 9090,
      metricsPort: 9091,
    },
    { id: "old-node", nodeName: "old-node", podIP: "198.18.0.31", zone: "", capabilities: [] },
  ]);
});

test("version body: no capabilities or CIDRs by default; applyConfig switches the external allowlist live", async () => {
  const get = async () => {
    const res = await fetch(`${base}/api/v1/version`);
    assert.equal(res.status, 200);
    return res.json();
  };
  assert.deepEqual(await get(), {
    version: "2.5.0",
    commit: "0123abc",
    capabilities: [],
    externalAllowedCidrs: [],
  });
  const cidrs = ["198.18.0.0/15", "fd00:198:18::/64"];
  controller.applyConfig(
    testConfig({ metricsPrefix: "lab", external: { enabled: true, allowedCidrs: cidrs } }),
  );
  assert.deepEqual(((await get()) as { externalAllowedCidrs: string[] }).externalAllowedCidrs, cidrs);
  controller.applyConfig(
    testConfig({ metricsPrefix: "lab", external: { enabled: false, allowedCidrs: cidrs } }),
  );
  assert.deepEqual(((await get()) as { externalAllowedCidrs: string[] }).externalAllowedCidrs, []);
});

test("version body advertises events when controller.events.enabled", async () => {
  const c = new Controller({
    config: testConfig({ eventsEnabled: true }),
    version: { version: "2.5.0", commit: "x" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await c.start();
  try {
    const body = (await (await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/version`)).json()) as {
      capabilities: string[];
    };
    assert.deepEqual(body.capabilities, ["events"]);
  } finally {
    await c.stop();
  }
});

test("metrics are served on both ports with the configured prefix; healthz and readyz on both", async () => {
  for (const port of [controller.httpPort, controller.metricsPort]) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await res.text();
    for (const family of [
      "lab_controller_registered_agents",
      "lab_controller_expected_agents",
      "lab_controller_grpc_connections",
      "lab_controller_peer_updates_total",
    ]) {
      assert.match(text, new RegExp(`^${family} \\d+$`, "m"), family);
    }
    assert.match(text, /^lab_controller_leader 1$/m);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual([health.status, await health.text()], [200, "ok"]);
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  }
});

test("registered agent gauge follows the registry", async () => {
  await raw.register(registerRequest({ node_name: "gauge-node", advertise_address: "198.18.0.33" }));
  const text = await (await fetch(`http://127.0.0.1:${controller.metricsPort}/metrics`)).text();
  assert.match(text, new RegExp(`^lab_controller_registered_agents ${controller.registry.size}$`, "m"));
  assert.ok(controller.registry.size >= 1);
});
