import assert from "node:assert/strict";
import { test } from "node:test";
import { changedSources, type PlanNode, type PlanOptions, planProbes, planToJson } from "./index.ts";
import { planViolations } from "./testing/invariants.ts";

const sparse = (over: Partial<PlanOptions> = {}): PlanOptions => ({
  mode: "sparse",
  ringDegree: 2,
  zoneChords: 2,
  autoThreshold: 0,
  ...over,
});

const fleet = (spec: string): PlanNode[] =>
  spec.split(" ").map((s) => {
    const [name = "", zone = ""] = s.split("@");
    return { name, zone };
  });

const edges = (plan: ReadonlyMap<string, readonly string[]>) =>
  [...plan.values()].reduce((sum, targets) => sum + targets.length, 0);

test("mode full is full mesh whatever the fleet", () => {
  assert.equal(planProbes(fleet("a@z1 b@z1 c@z2"), { ...sparse(), mode: "full" }), undefined);
});

test("sparse below autoThreshold stays full mesh; at the threshold it plans", () => {
  const nodes = fleet("a@z b@z c@z");
  assert.equal(planProbes(nodes, sparse({ autoThreshold: 4 })), undefined);
  assert.ok(planProbes(nodes, sparse({ autoThreshold: 3 })) instanceof Map);
  assert.equal(planProbes([], sparse({ autoThreshold: 1 })), undefined);
});

test("empty fleet with autoThreshold 0 is an empty sparse plan", () => {
  assert.deepEqual(planToJson(planProbes([], sparse())!), {});
});

test("one node is planned to probe nobody", () => {
  assert.deepEqual(planToJson(planProbes(fleet("solo@z"), sparse())!), { solo: [] });
});

test("two nodes probe each other", () => {
  assert.deepEqual(planToJson(planProbes(fleet("b@z a@z"), sparse({ ringDegree: 3 }))!), {
    a: ["b"],
    b: ["a"],
  });
});

test("three nodes in one zone with ringDegree 1 form one directed cycle", () => {
  const plan = planProbes(fleet("a@z b@z c@z"), sparse({ ringDegree: 1 }))!;
  assert.equal(edges(plan), 3);
  const [first] = plan.keys();
  const seen = new Set<string>();
  for (let at = first!; !seen.has(at); at = plan.get(at)![0]!) {
    assert.equal(plan.get(at)!.length, 1);
    seen.add(at);
  }
  assert.equal(seen.size, 3, "the cycle visits every node");
});

test("ringDegree at least n-1 is the full mesh, spelled out", () => {
  const plan = planProbes(fleet("a@z b@z c@z"), sparse({ ringDegree: 9 }))!;
  assert.deepEqual(planToJson(plan), { a: ["b", "c"], b: ["a", "c"], c: ["a", "b"] });
});

test("single-node zones: every ordered zone pair gets its one possible chord", () => {
  const plan = planProbes(fleet("a@z1 b@z2 c@z3"), sparse({ ringDegree: 1, zoneChords: 2 }))!;
  assert.deepEqual(planToJson(plan), { a: ["b", "c"], b: ["a", "c"], c: ["a", "b"] });
});

test("one zone, or zoneChords 0: exactly the ring, n x ringDegree probes", () => {
  const many = Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, zone: i % 2 ? "a" : "b" }));
  const oneZone = many.map((n) => ({ ...n, zone: "only" }));
  assert.equal(edges(planProbes(oneZone, sparse({ ringDegree: 3, zoneChords: 8 }))!), 150);
  assert.equal(edges(planProbes(many, sparse({ ringDegree: 3, zoneChords: 0 }))!), 150);
});

test("a small zone next to a big one: chords both ways, spread over distinct nodes", () => {
  const nodes = [
    ...Array.from({ length: 30 }, (_, i) => ({ name: `big-${i}`, zone: "big" })),
    { name: "lone", zone: "small" },
    { name: "pair-1", zone: "pair" },
    { name: "pair-2", zone: "pair" },
  ];
  const opts = sparse({ ringDegree: 1, zoneChords: 3 });
  const plan = planProbes(nodes, opts)!;
  assert.deepEqual(planViolations(nodes, opts, plan), []);
  const bigProbersOfLone = [...plan].filter(([s, t]) => s.startsWith("big-") && t.includes("lone"));
  assert.ok(bigProbersOfLone.length >= 3, "lone is probed from 3 distinct big nodes");
  assert.ok(plan.get("lone")!.filter((t) => t.startsWith("big-")).length >= 3, "lone probes 3 big nodes");
});

test("output is sorted, frozen and independent of input order and duplicates", () => {
  const nodes = Array.from({ length: 200 }, (_, i) => ({
    name: `node-${(i * 7919) % 1000}`,
    zone: `z${i % 5}`,
  }));
  const opts = sparse({ ringDegree: 2, zoneChords: 3 });
  const plan = planProbes(nodes, opts)!;
  const reversed = planProbes([...nodes].reverse(), opts)!;
  const withDuplicate = planProbes([...nodes, nodes[0]!], opts)!;
  assert.deepEqual(planToJson(reversed), planToJson(plan));
  assert.deepEqual(planToJson(withDuplicate), planToJson(plan));
  assert.deepEqual(planViolations(nodes, opts, plan), []);
  assert.ok(Object.isFrozen(plan.get(nodes[0]!.name)));
});

test("a name listed in two zones keeps its smallest zone, in either order", () => {
  const opts = sparse({ ringDegree: 1, zoneChords: 1 });
  const x = planProbes(fleet("a@z2 a@z1 b@z1 c@z2"), opts)!;
  const y = planProbes(fleet("a@z1 b@z1 c@z2 a@z2"), opts)!;
  assert.deepEqual(planToJson(x), planToJson(y));
  assert.deepEqual(planViolations(fleet("a@z1 b@z1 c@z2"), opts, x), []);
});

test("replanning an unchanged fleet with its own plan as previous changes nothing", () => {
  const nodes = Array.from({ length: 300 }, (_, i) => ({ name: `n-${i}`, zone: `z${i % 7}` }));
  const opts = sparse({ ringDegree: 2, zoneChords: 4 });
  const plan = planProbes(nodes, opts)!;
  assert.deepEqual(changedSources(plan, planProbes(nodes, opts, plan)!), []);
});

test("previous entries naming vanished nodes are ignored", () => {
  const nodes = fleet("a@z1 b@z1 c@z2 d@z2");
  const opts = sparse({ ringDegree: 1, zoneChords: 1 });
  const stale = new Map([
    ["a", ["ghost", "c"]],
    ["ghost", ["a"]],
  ]);
  const plan = planProbes(nodes, opts, stale)!;
  assert.deepEqual([...plan.keys()], ["a", "b", "c", "d"]);
  assert.deepEqual(planViolations(nodes, opts, plan), []);
});

test("out-of-range options throw RangeError naming the config key", () => {
  const nodes = fleet("a@z");
  assert.throws(() => planProbes(nodes, sparse({ ringDegree: 0 })), /topology\.sparse\.ringDegree/);
  assert.throws(() => planProbes(nodes, sparse({ zoneChords: 65 })), /topology\.sparse\.zoneChords/);
  assert.throws(() => planProbes(nodes, sparse({ autoThreshold: -1 })), /topology\.sparse\.autoThreshold/);
  assert.throws(() => planProbes(nodes, sparse({ ringDegree: 1.5 })), RangeError);
});
