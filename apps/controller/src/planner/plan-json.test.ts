import assert from "node:assert/strict";
import { test } from "node:test";
import {
  changedSources,
  planFromJson,
  plannedTargets,
  planOptionsFromConfig,
  planProbes,
  planToJson,
} from "./index.ts";

const nodes = Array.from({ length: 40 }, (_, i) => ({ name: `n${39 - i}`, zone: `z${i % 3}` }));
const opts = { mode: "sparse", ringDegree: 2, zoneChords: 2, autoThreshold: 0 } as const;

test("planToJson: keys in sorted order, arrays copied; planFromJson reads it back", () => {
  const plan = planProbes(nodes, opts)!;
  const json = planToJson(plan);
  assert.deepEqual(Object.keys(json), [...plan.keys()].sort());
  json.n0?.push("mutated");
  assert.ok(!plan.get("n0")!.includes("mutated"));
  const back = planFromJson(JSON.parse(JSON.stringify(planToJson(plan))));
  assert.deepEqual(changedSources(plan, back), []);
});

test("planFromJson sorts, de-duplicates and drops self-probes", () => {
  const plan = planFromJson({ b: ["c", "a", "c", "b"], a: [] });
  assert.deepEqual([...plan.keys()], ["a", "b"]);
  assert.deepEqual(plan.get("b"), ["a", "c"]);
});

test("plannedTargets: undefined on full mesh, [] for an unplanned source, a copy otherwise", () => {
  const plan = planProbes(nodes, opts)!;
  assert.equal(plannedTargets(undefined, "n1"), undefined);
  assert.deepEqual(plannedTargets(plan, "not-a-node"), []);
  const targets = plannedTargets(plan, "n1")!;
  assert.deepEqual(targets, plan.get("n1"));
  targets.push("x");
  assert.notDeepEqual(plannedTargets(plan, "n1"), targets);
});

test("changedSources lists changed, added and removed sources, sorted", () => {
  const before = planFromJson({ a: ["b"], b: ["a"], c: ["a"] });
  const after = planFromJson({ a: ["b"], b: ["c"], d: ["a"] });
  assert.deepEqual(changedSources(before, after), ["b", "c", "d"]);
});

test("planOptionsFromConfig maps the topology section", () => {
  const o = planOptionsFromConfig({
    mode: "sparse",
    sparse: { ringDegree: 3, zoneChords: 1, autoThreshold: 10 },
  });
  assert.deepEqual(o, { mode: "sparse", ringDegree: 3, zoneChords: 1, autoThreshold: 10 });
});
