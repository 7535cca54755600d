import assert from "node:assert/strict";
import { test } from "node:test";
import type { Registration } from "./agent.ts";
import { AgentRegistry, type RegistryChange } from "./registry.ts";

function reg(over: Partial<Registration> = {}): Registration {
  return {
    agentId: "",
    nodeName: "node-a",
    address: "198.18.0.1",
    zone: "",
    labels: {},
    capabilities: [],
    httpPort: 0,
    udpPort: 0,
    metricsPort: 0,
    version: "2.5.0",
    ...over,
  };
}

test("re-registering a node name replaces the previous agent, whatever its id", () => {
  const r = new AgentRegistry({ ttlMs: 30_000 });
  const changes: RegistryChange[] = [];
  r.onChange((c) => changes.push(c));
  r.register(reg({ agentId: "old" }));
  r.register(reg({ agentId: "new", address: "198.18.0.9" }));
  assert.deepEqual(
    r.list().map((a) => [a.id, a.address]),
    [["new", "198.18.0.9"]],
  );
  const last = changes.at(-1);
  assert.equal(last?.kind, "registered");
  assert.deepEqual(last?.kind === "registered" ? last.replaced.map((a) => a.id) : [], ["old"]);
  assert.equal(r.heartbeat("old"), false);
  assert.equal(r.heartbeat("new"), true);
});

test("an empty agent id is derived from the node name", () => {
  const r = new AgentRegistry({ ttlMs: 30_000 });
  assert.equal(r.register(reg({ nodeName: "worker-3" })).id, "worker-3");
});

test("zone: external label wins, then reported zone, then inventory, else empty", () => {
  const inventory = new Map([["node-b", "zone-inv"]]);
  const r = new AgentRegistry({ ttlMs: 30_000, inventoryZone: (n) => inventory.get(n) });
  assert.equal(r.register(reg({ nodeName: "node-a", zone: "zone-1" })).zone, "zone-1");
  assert.equal(r.register(reg({ nodeName: "node-b" })).zone, "zone-inv");
  assert.equal(r.register(reg({ nodeName: "node-c" })).zone, "");
  assert.equal(
    r.register(reg({ nodeName: "host-d", zone: "zone-1", labels: { "svc.io/external": "true" } })).zone,
    "external",
  );
});

test("agents without heartbeat are evicted after the TTL; heartbeats keep an agent; TTL changes live", async () => {
  let now = 1_000_000;
  const r = new AgentRegistry({ ttlMs: 1000, now: () => now });
  r.register(reg({ nodeName: "quiet" }));
  r.register(reg({ nodeName: "chatty", agentId: "chatty" }));
  now += 800;
  assert.equal(r.heartbeat("chatty"), true);
  now += 400;
  assert.deepEqual(
    r.evictExpired().map((a) => a.nodeName),
    ["quiet"],
  );
  assert.deepEqual(
    r.list().map((a) => a.nodeName),
    ["chatty"],
  );
  r.setTtl(5000);
  now += 3000;
  assert.deepEqual(r.evictExpired(), []);
  r.setTtl(2000);
  assert.deepEqual(
    r.evictExpired().map((a) => a.nodeName),
    ["chatty"],
  );
});

test("the eviction timer evicts on its own between start and stop", async () => {
  const r = new AgentRegistry({ ttlMs: 100 });
  const evicted = new Promise<string>((resolve) =>
    r.onChange((c) => {
      if (c.kind === "evicted") resolve(c.agent.nodeName);
    }),
  );
  // The sweep timer is unref'd (it never holds a process open); keep the loop alive while waiting.
  const keepAlive = setTimeout(() => {}, 10_000);
  r.start();
  r.register(reg({ nodeName: "gone" }));
  assert.equal(await evicted, "gone");
  clearTimeout(keepAlive);
  assert.equal(r.size, 0);
  r.stop();
});

test("refreshZones follows the inventory for agents that reported no zone, and only for them", () => {
  const inventory = new Map<string, string>();
  const r = new AgentRegistry({ ttlMs: 30_000, inventoryZone: (n) => inventory.get(n) });
  r.register(reg({ nodeName: "early", agentId: "early" })); // registered before the node list arrived
  r.register(reg({ nodeName: "own", agentId: "own", zone: "zone-own" }));
  r.register(reg({ nodeName: "edge", agentId: "edge", labels: { "svc.io/external": "true" } }));
  const changes: RegistryChange[] = [];
  r.onChange((c) => changes.push(c));
  inventory.set("early", "zone-a").set("own", "zone-b").set("edge", "zone-c");
  r.refreshZones();
  assert.deepEqual(
    r.list().map((a) => [a.nodeName, a.zone]),
    [
      ["early", "zone-a"],
      ["edge", "external"],
      ["own", "zone-own"],
    ],
  );
  assert.deepEqual(
    changes.map((c) => [c.kind, c.agent.nodeName]),
    [["registered", "early"]],
  );
  r.refreshZones();
  assert.equal(changes.length, 1, "nothing changes twice");
});
