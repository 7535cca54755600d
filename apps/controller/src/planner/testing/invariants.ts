import type { PlanNode, PlanOptions, ProbePlan } from "../types.ts";

/**
 * Every way `plan` breaks the sparse-plan contract for `nodes` (empty when it holds): key set equals the node
 * set, targets sorted/unique/not self/known, in-degree, and zone chords (count, distinct sources, distinct
 * targets per ordered zone pair). Written from the contract, independently of the planner's algorithm.
 */
export function planViolations(nodes: readonly PlanNode[], opts: PlanOptions, plan: ProbePlan): string[] {
  const bad: string[] = [];
  const zoneOf = new Map(nodes.map((n) => [n.name, n.zone]));
  const n = zoneOf.size;
  if (plan.size !== n) bad.push(`plan has ${plan.size} keys for ${n} nodes`);
  const keys = [...plan.keys()];
  if (keys.some((k, i) => i > 0 && !(keys[i - 1]! < k))) bad.push("keys do not iterate in sorted order");
  const inDegree = new Map<string, Set<string>>();
  const pairEdges = new Map<string, { edges: number; srcs: Set<string>; tgts: Set<string> }>();
  for (const [src, targets] of plan) {
    if (!zoneOf.has(src)) bad.push(`unknown source ${src}`);
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      if (i > 0 && !(targets[i - 1]! < t)) bad.push(`${src}: targets not strictly sorted at ${t}`);
      if (t === src) bad.push(`${src}: probes itself`);
      const tz = zoneOf.get(t);
      if (tz === undefined) {
        bad.push(`${src}: unknown target ${t}`);
        continue;
      }
      const probers = inDegree.get(t) ?? new Set<string>();
      inDegree.set(t, probers.add(src));
      const sz = zoneOf.get(src);
      if (sz !== undefined && sz !== tz) {
        const key = `${sz}\u0000${tz}`;
        const pe = pairEdges.get(key) ?? { edges: 0, srcs: new Set<string>(), tgts: new Set<string>() };
        pairEdges.set(key, pe);
        pe.edges++;
        pe.srcs.add(src);
        pe.tgts.add(t);
      }
    }
  }
  const wantIn = Math.min(opts.ringDegree, n - 1);
  for (const name of zoneOf.keys()) {
    const got = inDegree.get(name)?.size ?? 0;
    if (got < wantIn) bad.push(`${name}: probed by ${got} peers, want at least ${wantIn}`);
  }
  const zoneSize = new Map<string, number>();
  for (const z of zoneOf.values()) zoneSize.set(z, (zoneSize.get(z) ?? 0) + 1);
  const c = opts.zoneChords;
  for (const [a, na] of zoneSize) {
    for (const [b, nb] of zoneSize) {
      if (a === b) continue;
      const pe = pairEdges.get(`${a}\u0000${b}`);
      const [edges, srcs, tgts] = [pe?.edges ?? 0, pe?.srcs.size ?? 0, pe?.tgts.size ?? 0];
      if (edges < Math.min(c, na * nb)) bad.push(`${a}->${b}: ${edges} chords, want ${Math.min(c, na * nb)}`);
      if (srcs < Math.min(c, na)) bad.push(`${a}->${b}: ${srcs} distinct sources, want ${Math.min(c, na)}`);
      if (tgts < Math.min(c, nb)) bad.push(`${a}->${b}: ${tgts} distinct targets, want ${Math.min(c, nb)}`);
    }
  }
  return bad;
}
