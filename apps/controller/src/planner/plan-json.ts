import { compareNames } from "./hash.ts";
import type { ProbePlan } from "./types.ts";

/**
 * The targets `source` is planned to probe: `undefined` when `plan` is undefined (full mesh: every peer is
 * intended); otherwise a fresh sorted copy, `[]` for a source the plan does not list (a node the controller has
 * not planned yet probes nobody until the next plan).
 */
export function plannedTargets(plan: ProbePlan | undefined, source: string): string[] | undefined {
  if (plan === undefined) return undefined;
  return [...(plan.get(source) ?? [])];
}

/** The wire form of spec §2.3 `probePlan`: a plain object, keys in sorted order, arrays copied. */
export function planToJson(plan: ProbePlan): Record<string, string[]> {
  const json: Record<string, string[]> = {};
  for (const key of [...plan.keys()].sort(compareNames)) json[key] = [...(plan.get(key) ?? [])];
  return json;
}

/**
 * Reads a `probePlan` object back (e.g. from a stored snapshot, to pass as `previous`). Targets are sorted and
 * de-duplicated and self-probes dropped; keys iterate sorted.
 */
export function planFromJson(json: Readonly<Record<string, readonly string[]>>): ProbePlan {
  const plan = new Map<string, readonly string[]>();
  for (const key of Object.keys(json).sort(compareNames)) {
    const targets = [...new Set(json[key] ?? [])].filter((t) => t !== key).sort(compareNames);
    plan.set(key, Object.freeze(targets));
  }
  return plan;
}
