/** The sentences and blocks of a pair suspect (one way or both, some planes, or a PMTU black hole). */
import {
  AB_ALL,
  BA_ALL,
  BA_P,
  BOTH_ALL,
  BOTH_P,
  IN_ALL,
  OUT_ALL,
  PMTU_AB,
  PMTU_BA,
  PMTU_BOTH,
} from "./candidates.ts";
import type { DescribeContext } from "./describe.ts";
import { badPlanes, effectOf, lossNote, PLANES, perPlane, total } from "./evidence-text.ts";
import { protocolName } from "./observations.ts";
import type { ScopeStats } from "./scope-stats.ts";
import type { ScopeBlock, Suspect } from "./types.ts";

export function describePair(
  ctx: DescribeContext,
  c: number,
  a: number,
  b: number,
  variant: number,
  names: readonly string[],
  st: (id: number) => ScopeStats,
): Omit<Suspect, "role" | "confidence" | "explains" | "since"> {
  const { space } = ctx;
  const base = c - variant;
  const mine = st(c);
  const an = names[a] ?? "";
  const bn = names[b] ?? "";
  const isPmtu = variant >= PMTU_AB;
  const both = variant === BOTH_ALL || (variant >= BOTH_P && variant < BOTH_P + 3) || variant === PMTU_BOTH;
  const reverse = variant === BA_ALL || (variant >= BA_P && variant < BA_P + 3) || variant === PMTU_BA;
  const [s, d] = reverse ? [b, a] : [a, b];
  const sn = names[s] ?? "";
  const dn = names[d] ?? "";
  const planes = isPmtu || variant <= BA_ALL ? (isPmtu ? [3] : PLANES) : [(variant - BOTH_P) % 3];
  const protocols = badPlanes(mine, planes);
  const t = total(mine, planes);
  const blocks: ScopeBlock[] = [{ sources: [sn], destinations: [dn] }];
  if (both) blocks.push({ sources: [dn], destinations: [sn] });
  const key = isPmtu ? "pmtu" : protocols.join("+");
  const id = `pair:${both ? `${an}|${bn}` : `${sn}|${dn}`}:${both ? "both" : "one-way"}:${key}`;
  if (isPmtu) {
    const pm = mine[3] ?? total([]);
    return {
      id,
      kind: "pair",
      mode: both ? "both" : "outbound",
      effect: "fail",
      source: sn,
      destination: dn,
      protocols: ["pmtu"],
      evidence: [
        `path-MTU black hole ${both ? `between ${sn} and ${dn}, both ways` : `from ${sn} to ${dn}`}: ${pm.maxProbe > 0 ? `${pm.maxProbe}-byte packets vanish` : "large packets vanish"}${pm.minBytes > 0 ? `, ${pm.minBytes} bytes cross` : ""}`,
      ],
      scope: blocks,
    };
  }
  // the source's other peers and the destination's other sources, over the same planes, without this pair
  const dir = st(base + (reverse ? BA_ALL : AB_ALL));
  const out = total(st(space.node(OUT_ALL, s)), planes);
  const into = total(st(space.node(IN_ALL, d)), planes);
  const own = total(dir, planes);
  const othersOut = `${out.observed - own.observed - (out.bad - own.bad)} of ${out.observed - own.observed}`;
  const othersIn = `${into.observed - own.observed - (into.bad - own.bad)} of ${into.observed - own.observed}`;
  const what = planes.length === 1 ? ` over ${protocols[0] ?? protocolName(planes[0] ?? 0)}` : "";
  return {
    id,
    kind: "pair",
    mode: both ? "both" : "outbound",
    effect: effectOf(t),
    source: sn,
    destination: dn,
    protocols,
    evidence: [
      both
        ? `${sn} and ${dn} cannot reach each other${what}: ${t.bad} of ${t.observed} probes fail both ways (${perPlane(mine, planes)})${lossNote(t)}`
        : `${sn} -> ${dn} fails${what} (${perPlane(mine, planes)})${lossNote(t)}`,
      `${sn}'s other probes: ${othersOut} fine; towards ${dn} from elsewhere: ${othersIn} fine`,
    ],
    scope: blocks,
  };
}
