// npm run bench -- planner: median plan time, plan size and churn per join/leave of the sparse probe planner
// for fleets of 100, 1000 and 5000 nodes over 20 zones. Prints a table and appends it to docs/benchmarks.md.
import { appendFileSync, existsSync } from "node:fs";
import { availableParallelism, machine } from "node:os";
import { changedSources, type PlanOptions, planProbes } from "../../apps/controller/src/planner/index.ts";
import { createPrng } from "../../apps/controller/src/planner/testing/prng.ts";
import { newName, randomFleet } from "../../apps/controller/src/planner/testing/random-fleet.ts";

const SIZES = [100, 1000, 5000];
const ZONES = 20;
const RUNS = 5;
const CHURN_STEPS = 20;
const opts: PlanOptions = { mode: "sparse", ringDegree: 2, zoneChords: 2, autoThreshold: 0 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};
const stats = (xs: number[]) =>
  `${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)} / ${Math.max(...xs)}`;

interface Row {
  n: number;
  ms: number;
  edges: number;
  join: string;
  leave: string;
}

// Warm the JIT on a mid-size fleet so the first (reference) row is not charged for compilation.
const warm = randomFleet(createPrng(1), 1000, ZONES);
for (let i = 0; i < 3; i++) planProbes(warm, opts);

const rows: Row[] = [];
for (const n of SIZES) {
  const rng = createPrng(n);
  const nodes = randomFleet(rng, n, ZONES);
  const times: number[] = [];
  let plan = planProbes(nodes, opts);
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    plan = planProbes(nodes, opts);
    times.push(performance.now() - t0);
  }
  if (plan === undefined) throw new Error("sparse plan expected");
  const edges = [...plan.values()].reduce((sum, t) => sum + t.length, 0);
  const taken = new Set(nodes.map((x) => x.name));
  const joins: number[] = [];
  const leaves: number[] = [];
  for (let i = 0; i < CHURN_STEPS; i++) {
    const joined = [...nodes, { name: newName(rng, taken), zone: `zone-${rng.int(0, ZONES - 1)}` }];
    joins.push(changedSources(plan, planProbes(joined, opts, plan) ?? new Map()).length);
    const leaver = rng.pick(nodes);
    const left = nodes.filter((x) => x !== leaver);
    leaves.push(changedSources(plan, planProbes(left, opts, plan) ?? new Map()).length);
  }
  rows.push({ n, ms: median(times), edges, join: stats(joins), leave: stats(leaves) });
}

const ref = rows[0]?.ms ?? 1;
const table = [
  "| nodes | zones | plan ms (median of 5) | x vs 100 nodes | probes (edges) | edges/node | churn per join (mean / max sources) | churn per leave (mean / max) |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.n} | ${ZONES} | ${r.ms.toFixed(2)} | ${(r.ms / ref).toFixed(1)} | ${r.edges} | ${(r.edges / r.n).toFixed(2)} | ${r.join} | ${r.leave} |`,
  ),
].join("\n");
const heading = `## planner — ${new Date().toISOString().slice(0, 10)} — ${machine()}, ${availableParallelism()} cpus`;
const body = `${heading}\n\nringDegree ${opts.ringDegree}, zoneChords ${opts.zoneChords}; churn = source lists changed by one join/leave planned against the previous plan, ${CHURN_STEPS} of each; zone sizes skewed (weight 1/(z+1)), so small fleets have zones smaller than zoneChords.\n\n${table}\n`;
console.log(body);
const doc = "docs/benchmarks.md";
appendFileSync(doc, `${existsSync(doc) ? "\n" : "# Benchmarks\n\n"}${body}`);
