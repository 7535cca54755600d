import assert from "node:assert/strict";
import { test } from "node:test";
import { ConflictError } from "../errors.ts";
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

test("re-registering a node name from the same address replaces the previous agent, whatever its id", () => {
  const r = new AgentRegistry({ ttlMs: 30_000 });
  const changes: RegistryChange[] = [];
  r.onChange((c) => changes.push(c));
  r.register(reg({ agentId: "old" }));
  r.register(reg({ agentId: "new", capabilities: ["plane:tcp"] }));
  assert.deepEqual(
    r.list().map((a) => [a.id, a.address]),
    [["new", "198.18.0.1"]],
  );
  const last = changes.at(-1);
  assert.equal(last?.kind, "registered");
  assert.deepEqual(last?.kind === "registered" ? last.replaced.map((a) => a.id) : [], ["old"]);
  assert.equal(r.heartbeat("old"), false);
  assert.equal(r.heartbeat("new"), true);
  assert.equal(r.agentOnNode("node-a")?.id, "new");
});

test("a live agent's node name cannot be taken from another address until its TTL lapses", () => {
  let now = 1_000_000;
  const r = new AgentRegistry({ ttlMs: 30_000, now: () => now });
  r.register(reg({ agentId: "real" }));
  const changes: RegistryChange[] = [];
  r.onChange((c) => changes.push(c));
  assert.throws(
    () => r.register(reg({ agentId: "intruder", address: "198.18.0.66" })),
    (err: unknown) =>
      err instanceof ConflictError &&
      err.code === "conflict" &&
      err.message.includes('node name "node-a"') &&
      err.message.includes("198.18.0.1"),
  );
  assert.deepEqual(changes, [], "a refused registration changes nothing");
  assert.equal(r.agentOnNode("node-a")?.id, "real");
  // the holder keeps heartbeating: still refused just before the TTL lapses
  now += 29_000;
  r.heartbeat("real");
  now += 30_000;
  assert.throws(() => r.register(reg({ agentId: "intruder", address: "198.18.0.66" })), ConflictError);
  // silent for longer than the TTL (not yet swept): the name can be taken
  now += 1;
  const taken = r.register(reg({ agentId: "successor", address: "198.18.0.66" }));
  assert.equal(taken.id, "successor");
  assert.deepEqual(
    r.list().map((a) => a.id),
    ["successor"],
  );
});

test("an agent (same id) may re-register from a new address, even under a new node name", () => {
  const r = new AgentRegistry({ ttlMs: 30_000 });
  r.register(reg({ agentId: "a1", nodeName: "node-a" }));
  r.register(reg({ agentId: "a1", nodeName: "node-a", address: "198.18.0.7" }));
  assert.equal(r.get("a1")?.address, "198.18.0.7");
  r.register(reg({ agentId: "a1", nodeName: "node-b", address: "198.18.0.8" }));
  assert.deepEqual(
    r.list().map((a) => [a.id, a.nodeName, a.address]),
    [["a1", "node-b", "198.18.0.8"]],
  );
  assert.equal(r.agentOnNode("node-a"), undefined);
  // but not onto a node another live agent holds from elsewhere
  r.register(reg({ agentId: "c1", nodeName: "node-c", address: "198.18.0.9" }));
  assert.throws(
    () => r.register(reg({ agentId: "a1", nodeName: "node-c", address: "198.18.0.8" })),
    ConflictError,
  );
  assert.equal(r.get("a1")?.nodeName, "node-b", "a refused move leaves the agent where it was");
});

test("holderIsStale lets a registration replace a live holder from another address", () => {
  const r = new AgentRegistry({ ttlMs: 30_000 });
  r.register(reg({ agentId: "old-pod", address: "198.18.0.1" }));
  const seen: string[] = [];
  const agent = r.register(reg({ agentId: "new-pod", address: "198.18.0.2" }), {
    holderIsStale: (h) => {
      seen.push(h.id);
      return true;
    },
  });
  assert.deepEqual(seen, ["old-pod"]);
  assert.equal(agent.address, "198.18.0.2");
  assert.equal(r.size, 1);
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
