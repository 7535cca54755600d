/** The engine's answers for the tests: a fleet of 12 nodes in 3 zones, a fault simulated on it, read at NOW. */
import assert from "node:assert/strict";
import { localize } from "../localize.ts";
import { observe } from "../observations.ts";
import type { LocalizeMemory, LocalizeResult, Suspect } from "../types.ts";
import { type SimFault, simFleet, simulate } from "./fleet-sim.ts";

export const FLEET = simFleet(3, 4); // node-1..node-12; node-1, 4, 7, 10 in zone-a
export const NOW = 1_000_000;

/** The answer for `faults` simulated at opts.now (default NOW), with the memory of an earlier answer. */
export function answer(
  faults: SimFault[],
  opts: Parameters<typeof simulate>[2] = {},
  memory?: LocalizeMemory,
) {
  const { nodes, cells } = simulate(FLEET, faults, { now: NOW, ...opts });
  return localize(observe(nodes, cells), { now: opts.now ?? NOW, memory });
}

/** The answer in steady state: a second one 5 s after a first (held-back small suspects and confirmations settle). */
export function steady(faults: SimFault[], opts: Parameters<typeof simulate>[2] = {}) {
  return answer(faults, { ...opts, now: NOW + 5, reportAge: 1 }, answer(faults, opts).memory);
}

/** The first suspect (failing the test when there is none). */
export const top = (r: LocalizeResult): Suspect => {
  const s = r.suspects[0];
  assert.ok(s, `no suspect at all (failing cells ${r.failingCells})`);
  return s;
};
export const explanation = (r: LocalizeResult) => r.suspects.filter((s) => s.role === "suspect");
export const show = (r: LocalizeResult) =>
  r.suspects.map((s) => `${s.role} ${s.id} (${s.explains}, ${s.confidence})`).join("; ");
