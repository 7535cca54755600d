import assert from "node:assert/strict";
import { test } from "node:test";
import type { TopologySection } from "@svc/core";
import { applyPeerList, type PeerList, type PeerMessage } from "@svc/protocol";
import { changedSources } from "../planner/diff.ts";
import { PlanState } from "../planner/plan-state.ts";
import type { ProbePlan } from "../planner/types.ts";
import type { Registration } from "../registry/agent.ts";
import { AgentRegistry } from "../registry/registry.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { PeerBroadcaster, type PeerSubscriber } from "./peer-broadcaster.ts";
import { peerListSize, splitPeerList } from "./peer-list-chunks.ts";

function reg(name: string, over: Partial<Registration> = {}): Registration {
  return {
    agentId: name,
    nodeName: name,
    address: "198.18.0.1",
    zone: "z1",
    labels: {},
    capabilities: ["plane:tcp"],
    httpPort: 8080,
    udpPort: 9090,
    metricsPort: 9091,
    version: "2.5.0",
    ...over,
  };
}

/** A subscriber that records what it is sent. */
function sink(agentId: string, incremental: boolean): { lists: PeerList[]; sub: PeerSubscriber } {
  const lists: PeerList[] = [];
  const send = (l: PeerList, sent: () => void): void => {
    lists.push(l);
    sent();
  };
  return { lists, sub: { agentId, incremental, send, end: () => {} } };
}

/** A subscriber whose messages leave only when the test says so. */
function slowSink(agentId: string): { lists: PeerList[]; sub: PeerSubscriber; release: () => void } {
  const lists: PeerList[] = [];
  const waiting: (() => void)[] = [];
  const send = (l: PeerList, sent: () => void): void => {
    lists.push(l);
    waiting.push(sent);
  };
  return {
    lists,
    sub: { agentId, incremental: true, send, end: () => {} },
    release: () => {
      for (const sent of waiting.splice(0)) sent();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 40));

test("an old-style watcher gets full lists; an incremental one gets only the change", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const b = new PeerBroadcaster({ registry, debounceMs: 5 });
  try {
    for (const n of ["a", "b", "c"]) registry.register(reg(n));
    const old = sink("a", false);
    const inc = sink("b", true);
    b.subscribe(old.sub);
    b.subscribe(inc.sub);
    assert.deepEqual(
      old.lists[0]?.peers.map((p) => p.agent_id),
      ["b", "c"],
    );
    assert.notEqual(old.lists[0]?.delta, true);
    assert.deepEqual(
      inc.lists[0]?.peers.map((p) => p.agent_id),
      ["a", "c"],
    );
    assert.notEqual(inc.lists[0]?.delta, true, "the first message of a stream is a full list");

    registry.register(reg("d"));
    registry.deregister("c");
    await waitUntil(() => old.lists.length === 2 && inc.lists.length === 2, "one update each");
    assert.deepEqual(
      old.lists[1]?.peers.map((p) => p.agent_id),
      ["b", "d"],
    );
    assert.notEqual(old.lists[1]?.delta, true);
    assert.equal(old.lists[1]?.removed, undefined);
    assert.equal(inc.lists[1]?.delta, true);
    assert.deepEqual(
      inc.lists[1]?.peers.map((p) => p.agent_id),
      ["d"],
    );
    assert.deepEqual(inc.lists[1]?.removed, ["c"]);
    assert.equal(inc.lists[1]?.sparse, false);
    assert.equal(inc.lists[1]?.zone, "z1");

    // A change to the watcher itself reaches it only through its own view (zone), never as a peer.
    registry.register(reg("b", { zone: "z2" }));
    await waitUntil(() => inc.lists.length === 3 && old.lists.length === 3, "zone change seen");
    assert.deepEqual(inc.lists[2]?.peers, []);
    assert.deepEqual(inc.lists[2]?.removed, []);
    assert.equal(inc.lists[2]?.zone, "z2");
    assert.equal(old.lists[2]?.peers.find((p) => p.agent_id === "b")?.zone, "z2");
  } finally {
    b.close();
  }
});

test("a re-registration that changes nothing a peer sees sends nothing", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const b = new PeerBroadcaster({ registry, debounceMs: 5 });
  try {
    registry.register(reg("a", { labels: { x: "1", y: "2" } }));
    registry.register(reg("b"));
    const old = sink("a", false);
    const inc = sink("b", true);
    b.subscribe(old.sub);
    b.subscribe(inc.sub);
    await settle();
    const before = [old.lists.length, inc.lists.length];
    registry.register(reg("a", { labels: { y: "2", x: "1" }, version: "2.5.1", metricsPort: 1 }));
    registry.register(reg("b"));
    b.refresh();
    await settle();
    assert.deepEqual([old.lists.length, inc.lists.length], before);
  } finally {
    b.close();
  }
});

const sparse = (zoneChords: number): TopologySection => ({
  mode: "sparse",
  sparse: { ringDegree: 1, zoneChords, autoThreshold: 0 },
});

test("sparse: a plan change reaches only the agents whose planned list moved, without peers", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const names = Array.from({ length: 12 }, (_, i) => `node-${i}`);
  for (const [i, n] of names.entries()) registry.register(reg(n, { zone: `z${i % 3}` }));
  const plan = new PlanState(registry, sparse(0));
  const b = new PeerBroadcaster({ registry, debounceMs: 5, planned: (n) => plan.plannedFor(n) });
  const sinks = names.map((n, i) => sink(n, i % 2 === 0));
  try {
    for (const s of sinks) b.subscribe(s.sub);
    for (const s of sinks) {
      assert.equal(s.lists.length, 1);
      assert.equal(s.lists[0]?.sparse, true);
      assert.equal(s.lists[0]?.peers.length, 11);
    }
    const before = plan.current() as ProbePlan;
    plan.setTopology(sparse(3));
    b.refresh();
    const after = plan.current() as ProbePlan;
    const moved = new Set(changedSources(before, after));
    assert.ok(moved.size > 0 && moved.size < names.length, `a partial change (${moved.size} of 12)`);
    await settle();
    for (const [i, s] of sinks.entries()) {
      const name = names[i] as string;
      if (!moved.has(name)) {
        assert.equal(s.lists.length, 1, `${name}: unaffected, sent nothing`);
        continue;
      }
      assert.equal(s.lists.length, 2, `${name}: planned list moved`);
      const last = s.lists[1];
      assert.deepEqual(last?.planned, after.get(name));
      if (s.sub.incremental) {
        assert.equal(last?.delta, true);
        assert.deepEqual(last?.peers, []);
      } else assert.equal(last?.peers.length, 11);
    }
  } finally {
    b.close();
  }
});

test("sparse: a join sends each agent the new peer once, and the joiner's probers their new plan", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const names = Array.from({ length: 8 }, (_, i) => `node-${i}`);
  for (const n of names) registry.register(reg(n));
  const plan = new PlanState(registry, sparse(0));
  const b = new PeerBroadcaster({ registry, debounceMs: 5, planned: (n) => plan.plannedFor(n) });
  const sinks = names.map((n) => sink(n, true));
  try {
    for (const s of sinks) b.subscribe(s.sub);
    const before = plan.current() as ProbePlan;
    registry.register(reg("node-new"));
    await settle();
    const after = plan.current() as ProbePlan;
    for (const [i, s] of sinks.entries()) {
      assert.equal(s.lists.length, 2);
      const last = s.lists[1];
      assert.deepEqual(
        last?.peers.map((p) => p.agent_id),
        ["node-new"],
      );
      assert.deepEqual(last?.planned, after.get(names[i] as string));
    }
    assert.ok(changedSources(before, after).length >= 2, "the joiner and its ring predecessor");
  } finally {
    b.close();
  }
});

test("one message in flight per watcher: changes meanwhile coalesce into its next delta", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const b = new PeerBroadcaster({ registry, debounceMs: 5 });
  try {
    registry.register(reg("me"));
    const slow = slowSink("me");
    const fast = sink("other", true);
    b.subscribe(slow.sub);
    b.subscribe(fast.sub);
    assert.equal(slow.lists.length, 1);
    registry.register(reg("a"));
    await settle();
    registry.register(reg("b"));
    registry.deregister("a");
    await settle();
    assert.equal(slow.lists.length, 1, "nothing more while the first message is in flight");
    assert.equal(fast.lists.length, 3, "others are not held up");
    slow.release();
    assert.equal(slow.lists.length, 2);
    const next = slow.lists[1];
    assert.equal(next?.delta, true);
    assert.deepEqual(
      next?.peers.map((p) => p.agent_id),
      ["b"],
    );
    assert.deepEqual(next?.removed, ["a"]);
  } finally {
    b.close();
  }
});

test("the in-flight budget holds back full lists until earlier ones have left", () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  for (const n of ["a", "b", "c", "d", "e"]) registry.register(reg(n));
  const b = new PeerBroadcaster({ registry, debounceMs: 5, maxInFlightPeers: 5 });
  try {
    const first = slowSink("a");
    const second = sink("b", true);
    b.subscribe(first.sub);
    b.subscribe(second.sub);
    assert.equal(first.lists.length, 1);
    assert.equal(second.lists.length, 0, "waits: 4 peers + 1 message in flight reach the budget of 5");
    first.release();
    assert.equal(second.lists.length, 1);
    assert.deepEqual(
      second.lists[0]?.peers.map((p) => p.agent_id),
      ["a", "c", "d", "e"],
    );
  } finally {
    b.close();
  }
});

test("a stalled watcher stops holding the budget after stalledAfterMs", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  for (const n of ["a", "b", "c"]) registry.register(reg(n));
  const b = new PeerBroadcaster({ registry, debounceMs: 5, maxInFlightPeers: 3, stalledAfterMs: 50 });
  try {
    const stuck = slowSink("a");
    const next = sink("b", true);
    b.subscribe(stuck.sub);
    b.subscribe(next.sub);
    assert.equal(next.lists.length, 0, "the budget is held by the first message");
    await waitUntil(() => next.lists.length === 1, "the second list once the first counts as stalled");
    registry.register(reg("d"));
    await waitUntil(() => next.lists.length === 2, "later updates flow");
    assert.equal(stuck.lists.length, 1, "the stalled watcher itself gets nothing more");
  } finally {
    b.close();
  }
});

test("a change reaching many watchers is sent in slices: other work runs in between, everyone gets it", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const names = Array.from({ length: 200 }, (_, i) => `n${i}`);
  for (const n of names) registry.register(reg(n));
  const b = new PeerBroadcaster({ registry, debounceMs: 5 });
  try {
    let sends = 0;
    let sendsAtYield = -1;
    const got = new Set<string>();
    for (const n of names)
      b.subscribe({
        agentId: n,
        incremental: true,
        send: (l, sent) => {
          if (l.delta) {
            // a slow transport: 0.5 ms per message, 100 ms for all 200
            const until = performance.now() + 0.5;
            while (performance.now() < until) {}
            sends++;
            got.add(n);
          }
          sent();
        },
        end: () => {},
      });
    await settle();
    registry.register(reg("joiner"));
    // runs on the first turn of the event loop after the broadcast starts
    await new Promise<void>((r) =>
      setTimeout(function watch() {
        if (sends === 0) setTimeout(watch, 0);
        else
          setImmediate(() => {
            sendsAtYield = sends;
            r();
          });
      }, 0),
    );
    await waitUntil(() => got.size === names.length, "every watcher got the join");
    assert.ok(sendsAtYield > 0 && sendsAtYield < names.length, `yielded after ${sendsAtYield} of 200 sends`);
  } finally {
    b.close();
  }
});

test("a list over maxMessageBytes reaches an incremental watcher in parts; a full-list watcher is refused", async () => {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const maxMessageBytes = 4000;
  const b = new PeerBroadcaster({ registry, debounceMs: 5, maxMessageBytes });
  const label = { role: "x".repeat(200) };
  for (let i = 0; i < 60; i++) registry.register(reg(`n${String(i).padStart(2, "0")}`, { labels: label }));
  const inc = sink("n00", true);
  const refusals: string[] = [];
  const full = sink("n01", false);
  full.sub.refuse = (reason) => refusals.push(reason);
  b.subscribe(inc.sub);
  b.subscribe(full.sub);
  assert.ok(inc.lists.length > 1, `one message of ${inc.lists.length}`);
  for (const l of inc.lists)
    assert.ok(peerListSize(l) <= maxMessageBytes, `part of ${peerListSize(l)} bytes`);
  assert.equal(inc.lists[0]?.delta ?? false, false, "the first part is a full list");
  assert.ok(inc.lists.slice(1).every((l) => l.delta === true && l.zone === "z1"));
  const held = new Map<string, PeerMessage>();
  for (const l of inc.lists) applyPeerList(held, l, "n00");
  assert.equal(held.size, 59);
  assert.deepEqual(full.lists, [], "nothing it could not receive was sent");
  assert.equal(refusals.length, 1);
  assert.match(refusals[0] ?? "", /peer list of 59 peers is over 4000 bytes/);
  assert.equal(b.size, 1, "the refused watcher is gone, the other stays");
  // a burst of joins is split the same way
  const before = inc.lists.length;
  for (let i = 60; i < 90; i++) registry.register(reg(`n${i}`, { labels: label }));
  await waitUntil(() => {
    const h = new Map(held);
    for (const l of inc.lists.slice(before)) applyPeerList(h, l, "n00");
    return h.size === 89;
  }, "the 30 joins to arrive");
  assert.ok(inc.lists.length - before > 1);
  for (const l of inc.lists.slice(before)) assert.ok(peerListSize(l) <= maxMessageBytes);
  b.close();
});

test("splitPeerList keeps removals in the first part and every view field in each", () => {
  const peers = Array.from({ length: 30 }, (_, i) => ({
    agent_id: `a${i}`,
    node_name: `n${i}`,
    address: "198.18.0.1",
    zone: "z",
    labels: { k: "v".repeat(100) },
    capabilities: [],
    http_port: 0,
    udp_port: 0,
  }));
  const list: PeerList = { peers, removed: ["gone"], delta: true, sparse: true, planned: ["n1"], zone: "z" };
  const parts = splitPeerList(list, 1000);
  assert.ok(parts.length > 2);
  assert.deepEqual(parts[0]?.removed, ["gone"]);
  assert.ok(parts.slice(1).every((p) => p.removed?.length === 0));
  assert.ok(parts.every((p) => p.delta === true && p.sparse && p.planned[0] === "n1" && p.zone === "z"));
  assert.deepEqual(
    parts.flatMap((p) => p.peers.map((x) => x.agent_id)),
    peers.map((x) => x.agent_id),
  );
  assert.deepEqual(splitPeerList({ ...list, peers: peers.slice(0, 2) }, 1000).length, 1);
});
