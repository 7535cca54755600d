import assert from "node:assert/strict";
import { test } from "node:test";
import {
  changedSources,
  type PlanNode,
  type PlanOptions,
  type ProbePlan,
  planProbes,
  planToJson,
} from "./index.ts";
import { planViolations } from "./testing/invariants.ts";
import { createPrng, type Prng } from "./testing/prng.ts";
import { biasedSize, newName, randomFleet } from "./testing/random-fleet.ts";

// Fixed seeds keep CI reproducible; PLANNER_SEED=<n> replays one case printed by a failure.
const FLEETS = 220;
const replay = process.env.PLANNER_SEED;
const seeds = replay ? [Number(replay)] : Array.from({ length: FLEETS }, (_, i) => 0x5eed0000 + i);

interface Case {
  seed: number;
  rng: Prng;
  nodes: PlanNode[];
  zones: number;
  opts: PlanOptions;
}

function drawCase(seed: number): Case {
  const rng = createPrng(seed);
  const size = biasedSize(rng, 5000);
  const zones = rng.int(1, 20);
  const opts: PlanOptions = {
    mode: "sparse",
    ringDegree: rng.pick([1, 2, 2, 3, 4]),
    zoneChords: rng.pick([0, 1, 2, 2, 3, 4, 8]),
    autoThreshold: 0,
  };
  return { seed, rng, nodes: randomFleet(rng, size, zones), zones, opts };
}

const label = (c: Case) =>
  `seed=${c.seed} n=${c.nodes.length} zones=${c.zones} opts=${JSON.stringify(c.opts)} (replay: PLANNER_SEED=${c.seed})`;

function plan(c: Case, nodes: readonly PlanNode[], previous?: ProbePlan): ProbePlan {
  const p = planProbes(nodes, c.opts, previous);
  assert.ok(p !== undefined, `${label(c)}: sparse with autoThreshold 0 must plan`);
  return p;
}

function assertValid(c: Case, nodes: readonly PlanNode[], p: ProbePlan, what: string): void {
  const bad = planViolations(nodes, c.opts, p);
  assert.deepEqual(bad.slice(0, 5), [], `${label(c)} ${what}: ${bad.length} violations`);
}

function zoneSizes(nodes: readonly PlanNode[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const n of nodes) sizes.set(n.zone, (sizes.get(n.zone) ?? 0) + 1);
  return sizes;
}

test(`property: ${seeds.length} random fleets (1-5000 nodes, 1-20 zones) keep every invariant`, () => {
  for (const seed of seeds) {
    const c = drawCase(seed);
    const p = plan(c, c.nodes);
    assertValid(c, c.nodes, p, "fresh plan");

    const shuffled = plan(c, c.rng.shuffle(c.nodes));
    assert.deepEqual(planToJson(shuffled), planToJson(p), `${label(c)}: plan depends on input order`);
    const withPrevious = plan(c, c.rng.shuffle(c.nodes), p);
    assert.deepEqual(
      changedSources(p, withPrevious),
      [],
      `${label(c)}: replanning an unchanged fleet moved probes`,
    );
  }
});

test(`property: a random join or leave changes O(ringDegree + zoneChords) source lists, not O(n)`, () => {
  for (const seed of seeds) {
    const c = drawCase(seed);
    const { ringDegree: k, zoneChords: ch } = c.opts;
    const p = plan(c, c.nodes);
    const sizes = zoneSizes(c.nodes);

    // Join: a new node in a random zone (sometimes a brand-new zone).
    const zone = `zone-${c.rng.int(0, c.zones)}`;
    const joiner = { name: newName(c.rng, new Set(c.nodes.map((n) => n.name))), zone };
    const joined = [...c.nodes, joiner];
    const pj = plan(c, joined, p);
    assertValid(c, joined, pj, `after join of ${joiner.name}@${zone}`);
    // The joiner's own list, its k ring predecessors, at most one chord added per lost ring edge and one surplus
    // chord dropped per new ring edge, and chords to/from a zone that was smaller than zoneChords (its
    // requirement grows with it, for every other zone).
    const zonesAfter = zoneSizes(joined).size;
    const grew = (sizes.get(zone) ?? 0) < ch ? 2 * (zonesAfter - 1) * ch : 0;
    const joinBound = 1 + 3 * k + 2 * ch + grew;
    const joinChurn = changedSources(p, pj).length;
    assert.ok(
      joinChurn <= joinBound,
      `${label(c)}: join changed ${joinChurn} source lists, bound ${joinBound}`,
    );

    if (c.nodes.length < 2) continue;
    // Leave: a random node goes.
    const leaver = c.rng.pick(c.nodes);
    const left = c.nodes.filter((n) => n !== leaver);
    const pl = plan(c, left, p);
    assertValid(c, left, pl, `after leave of ${leaver.name}@${leaver.zone}`);
    // Forced: the leaver's key and every node that probed it. Beyond that: one replacement per cross-zone
    // probe the leaver made, its k predecessors' new ring edges making chords surplus, and chords to/from a
    // zone that shrank below zoneChords.
    const probers = [...p].filter(([, t]) => t.includes(leaver.name)).length;
    const outCross = (p.get(leaver.name) ?? []).filter(
      (t) => c.nodes.find((n) => n.name === t)?.zone !== leaver.zone,
    ).length;
    const shrunk = (sizes.get(leaver.zone) ?? 0) - 1 < ch ? 2 * (sizes.size - 1) * ch : 0;
    const leaveBound = 1 + probers + outCross + 2 * k + shrunk;
    const leaveChurn = changedSources(p, pl).length;
    assert.ok(
      leaveChurn <= leaveBound,
      `${label(c)}: leave changed ${leaveChurn} source lists, bound ${leaveBound}`,
    );
  }
});

test("churn in a 1000-node, 20-zone fleet stays flat: 40 joins and leaves, each O(k + c)", () => {
  const rng = createPrng(1000);
  const opts: PlanOptions = { mode: "sparse", ringDegree: 2, zoneChords: 2, autoThreshold: 0 };
  const base = Array.from({ length: 1000 }, (_, i) => ({ name: `node-${i}`, zone: `zone-${i % 20}` }));
  const p = planProbes(base, opts)!;
  const names = new Set(base.map((n) => n.name));
  for (let i = 0; i < 20; i++) {
    const joined = [...base, { name: newName(rng, names), zone: `zone-${rng.int(0, 19)}` }];
    const j = changedSources(p, planProbes(joined, opts, p)!).length;
    const leaver = rng.pick(base);
    const l = changedSources(
      p,
      planProbes(
        base.filter((n) => n !== leaver),
        opts,
        p,
      )!,
    ).length;
    // ringDegree + zoneChords = 4; 3 x that leaves room for the chord repairs, far below n = 1000.
    assert.ok(j <= 12 && l <= 12, `join ${j} / leave ${l} source lists changed (seed 1000, step ${i})`);
  }
});
