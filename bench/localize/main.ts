// npm run bench -- localize: what one answer of the localization engine costs at fleet size: 500 nodes in full
// mesh and 5,000 nodes on the sparse plan (the controller's planner, ringDegree 2, zoneChords 2), four protocols,
// for a healthy fleet, one node cut off, a zone partition and a fleet on fire (a protocol down everywhere plus 5 %
// of all cells failing at random). Reference in the same run: one plain pass that only reads every cell's state
// (the floor any engine pays). Medians of 7 runs after 2 warm-ups; heap growth of one answer.
import { planProbes } from "../../apps/controller/src/planner/index.ts";
import { createPrng } from "../../apps/controller/src/planner/testing/prng.ts";
import { localize, Observations } from "../../packages/localize/src/index.ts";
import { median, record, table } from "../lib/report.ts";

interface Fleet {
  label: string;
  names: string[];
  zones: string[];
  /** planned destinations of each source, by index */
  plan: number[][];
}

function fullMesh(n: number, zones: number): Fleet {
  const names = Array.from({ length: n }, (_, i) => `node-${i}`);
  const plan = names.map((_, s) => names.map((_, d) => d).filter((d) => d !== s));
  return { label: `${n} full mesh`, names, zones: names.map((_, i) => `zone-${i % zones}`), plan };
}

function sparse(n: number, zones: number): Fleet {
  const names = Array.from({ length: n }, (_, i) => `node-${i}`);
  const zoneOf = names.map((_, i) => `zone-${i % zones}`);
  const p = planProbes(
    names.map((name, i) => ({ name, zone: zoneOf[i] ?? "" })),
    { mode: "sparse", ringDegree: 2, zoneChords: 2, autoThreshold: 0 },
  );
  if (!p) throw new Error("sparse plan expected");
  const index = new Map(names.map((x, i) => [x, i]));
  const plan = names.map((x) => (p.get(x) ?? []).map((d) => index.get(d) ?? 0));
  return { label: `${n} sparse`, names, zones: zoneOf, plan };
}

type Scenario = (p: number, s: number, d: number, f: Fleet) => number; // 0 ok, 1 fail

const SCENARIOS: { name: string; state: (f: Fleet) => Scenario }[] = [
  { name: "healthy", state: () => () => 0 },
  { name: "one node cut off", state: () => (p, s, d) => (p < 3 && (s === 7 || d === 7) ? 1 : 0) },
  {
    name: "zone partition",
    state: () => (p, s, d, f) =>
      p < 3 &&
      ((f.zones[s] === "zone-0" && f.zones[d] === "zone-1") ||
        (f.zones[s] === "zone-1" && f.zones[d] === "zone-0"))
        ? 1
        : 0,
  },
  {
    name: "fleet on fire",
    state: () => {
      const rng = createPrng(34);
      return (p) => (p === 1 || rng.next() < 0.05 ? 1 : 0);
    },
  },
];

function build(f: Fleet, states: Uint8Array): Observations {
  const nodes = f.names.map((name, i) => ({ name, zone: f.zones[i] ?? "", reportedAt: 100 }));
  const o = new Observations(nodes, states.length);
  let k = 0;
  for (let p = 0; p < 4; p++)
    for (let s = 0; s < f.names.length; s++)
      for (const d of f.plan[s] ?? []) o.addIndexed(p, s, d, states[k++] ?? 0);
  return o;
}

function floorPass(f: Fleet, states: Uint8Array): number {
  let bad = 0;
  let k = 0;
  for (let p = 0; p < 4; p++)
    for (let s = 0; s < f.names.length; s++) for (const _ of f.plan[s] ?? []) bad += states[k++] ?? 0;
  return bad;
}

const RUNS = 7;
const rows: (string | number)[][] = [];
for (const fleet of [fullMesh(500, 20), sparse(5000, 20)]) {
  const cells = 4 * fleet.plan.reduce((a, x) => a + x.length, 0);
  for (const sc of SCENARIOS) {
    const fn = sc.state(fleet);
    const states = new Uint8Array(cells);
    let k = 0;
    for (let p = 0; p < 4; p++)
      for (let s = 0; s < fleet.names.length; s++)
        for (const d of fleet.plan[s] ?? []) states[k++] = fn(p, s, d, fleet);
    const floor: number[] = [];
    const times: number[] = [];
    let top = "";
    let heap = 0;
    for (let r = 0; r < RUNS + 2; r++) {
      const f0 = performance.now();
      floorPass(fleet, states);
      const f1 = performance.now();
      global.gc?.();
      const h0 = process.memoryUsage().heapUsed;
      const t0 = performance.now();
      const res = localize(build(fleet, states), { now: 100 });
      const t1 = performance.now();
      heap = Math.max(heap, process.memoryUsage().heapUsed - h0);
      if (r < 2) continue;
      floor.push(f1 - f0);
      times.push(t1 - t0);
      top = `${res.suspects.filter((x) => x.role === "suspect").length}: ${res.suspects[0]?.id ?? "none"}`;
    }
    rows.push([
      fleet.label,
      cells,
      sc.name,
      median(times).toFixed(1),
      median(floor).toFixed(2),
      (median(times) / Math.max(0.01, median(floor))).toFixed(0),
      (heap / 2 ** 20).toFixed(1),
      top,
    ]);
    console.log(rows.at(-1)?.join(" | "));
  }
}

record(
  "localize: one answer at fleet size",
  `Command: \`npm run bench -- localize\`. Build the observations (by index, as the console does) and answer; medians of ${RUNS} runs after 2 warm-ups; the floor is one pass reading every cell's state. Heap: growth during one answer (after a full GC).\n\n${table(
    [
      "fleet",
      "cells (4 protocols)",
      "scenario",
      "answer ms",
      "floor ms",
      "x floor",
      "heap MiB",
      "suspects: top",
    ],
    rows,
  )}`,
);
