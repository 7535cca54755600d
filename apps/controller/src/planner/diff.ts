import { compareNames } from "./hash.ts";
import type { ProbePlan } from "./types.ts";

/**
 * Sources whose planned targets differ between two plans (a key present in only one counts), sorted. Lets the
 * controller resend peer lists only to the agents whose plan moved; also the churn measure in tests.
 */
export function changedSources(before: ProbePlan, after: ProbePlan): string[] {
  const changed: string[] = [];
  for (const [src, targets] of after) {
    const old = before.get(src);
    if (old === undefined || !sameList(old, targets)) changed.push(src);
  }
  for (const src of before.keys()) if (!after.has(src)) changed.push(src);
  return changed.sort(compareNames);
}

function sameList(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
