/**
 * Turns a chosen candidate into a suspect: its kind and mode, the element, where it shows on the matrix, and the
 * sentences an operator reads ("11 of 11 sources fail to reach node-7 over udp; tcp and icmp fine").
 */
import { type CandidateSpace, IN_ALL, IN_P, MTU_OUT, OUT_ALL, OUT_P, PAIR_VARIANTS } from "./candidates.ts";
import { describeNode } from "./describe-node.ts";
import { describePair } from "./describe-pair.ts";
import { badPlanes, effectOf, fine, lossNote, perPlane } from "./evidence-text.ts";
import { protocolName } from "./observations.ts";
import { type ProtocolStats, type ScopeStats, type StatsPass, total } from "./scope-stats.ts";
import type { NodeStatus } from "./select.ts";
import type { ScopeBlock, Suspect, SuspectKind, SuspectMode } from "./types.ts";

/** A candidate taken apart. */
export type Decoded =
  | { family: "node"; kind: number; x: number }
  | { family: "zone"; zone: number }
  | { family: "zone-pair"; a: number; b: number }
  | { family: "protocol"; protocol: number }
  | { family: "pair"; a: number; b: number; variant: number };

export function decode(space: CandidateSpace, c: number): Decoded {
  if (c < space.zoneIsoBase) return { family: "node", kind: Math.floor(c / space.n), x: c % space.n };
  if (c < space.zonePairBase) return { family: "zone", zone: c - space.zoneIsoBase };
  if (c < space.protocolBase) {
    const k = c - space.zonePairBase;
    return { family: "zone-pair", a: Math.floor(k / space.z), b: k % space.z };
  }
  if (c < space.pairBase) return { family: "protocol", protocol: c - space.protocolBase };
  const slot = Math.floor((c - space.pairBase) / PAIR_VARIANTS);
  const key = space.slotKeys[slot] ?? 0;
  return {
    family: "pair",
    a: Math.floor(key / space.n),
    b: key % space.n,
    variant: (c - space.pairBase) % PAIR_VARIANTS,
  };
}

/** The other candidates whose figures a suspect's sentences quote (gathered in the same pass). */
export function companions(space: CandidateSpace, c: number): number[] {
  const d = decode(space, c);
  const node = (kind: number, x: number) => space.node(kind, x);
  switch (d.family) {
    case "node":
      return [IN_ALL, OUT_ALL, IN_P, IN_P + 1, IN_P + 2, OUT_P, OUT_P + 1, OUT_P + 2, MTU_OUT].map((k) =>
        node(k, d.x),
      );
    case "pair": {
      const out = [OUT_ALL, OUT_P, OUT_P + 1, OUT_P + 2, IN_ALL, IN_P, IN_P + 1, IN_P + 2];
      const base = space.pairBase + Math.floor((c - space.pairBase) / PAIR_VARIANTS) * PAIR_VARIANTS;
      const own = Array.from({ length: PAIR_VARIANTS }, (_, v) => base + v);
      return [...out.map((k) => node(k, d.a)), ...out.map((k) => node(k, d.b)), ...own];
    }
    case "protocol":
      return [0, 1, 2, 3].map((p) => space.protocolBase + p);
    default:
      return [];
  }
}

/** Everything the description needs besides the candidate. */
export interface DescribeContext {
  space: CandidateSpace;
  stats: StatsPass;
  status: readonly NodeStatus[];
}

/** The suspect candidate `c` stands for (role, confidence and since are filled in by the caller). */
export function describe(
  ctx: DescribeContext,
  c: number,
): Omit<Suspect, "role" | "confidence" | "explains" | "since"> {
  const { space, stats } = ctx;
  const names = space.obs.nodes.map((n) => n.name);
  const st = (id: number): ScopeStats => stats.of.get(id) ?? [];
  const mine = st(c);
  const d = decode(space, c);
  switch (d.family) {
    case "node": {
      const x = names[d.x] ?? "";
      const nodeSt = (kind: number) => st(space.node(kind, d.x));
      return describeNode(ctx, d.kind, x, mine, nodeSt);
    }
    case "zone": {
      const zone = space.obs.zoneNames[d.zone] ?? "";
      const t = total(mine);
      const inside = total(stats.intraZone[d.zone] ?? []);
      return {
        id: `zone:${zone}`,
        kind: "zone",
        mode: "partitioned",
        effect: effectOf(t),
        zones: [zone],
        protocols: badPlanes(mine),
        evidence: [
          `${zone} is cut off from every other zone: ${t.bad} of ${t.observed} probes across fail (${perPlane(mine)})${lossNote(t)}`,
          `inside ${zone} ${fine(inside)} probes are fine`,
        ],
        scope: zoneBlocks(space, [d.zone], null),
      };
    }
    case "zone-pair": {
      const za = space.obs.zoneNames[d.a] ?? "";
      const zb = space.obs.zoneNames[d.b] ?? "";
      const t = total(mine);
      const inA = total(stats.intraZone[d.a] ?? []);
      const inB = total(stats.intraZone[d.b] ?? []);
      return {
        id: `zone-pair:${za}|${zb}`,
        kind: "zone-pair",
        mode: "partitioned",
        effect: effectOf(t),
        zones: [za, zb],
        protocols: badPlanes(mine),
        evidence: [
          `${t.bad} of ${t.observed} probes between ${za} and ${zb} fail (${perPlane(mine)})${lossNote(t)}`,
          `inside ${za} ${fine(inA)} and inside ${zb} ${fine(inB)} probes are fine`,
        ],
        scope: zoneBlocks(space, [d.a], [d.b]),
      };
    }
    case "protocol": {
      const p = protocolName(d.protocol);
      const s = mine[d.protocol] ?? total([]);
      const others = [0, 1, 2, 3]
        .filter((q) => q !== d.protocol && (st(space.protocolBase + q)[q]?.observed ?? 0) > 0)
        .map((q) => `${protocolName(q)} ${fine(st(space.protocolBase + q)[q] as ProtocolStats)} fine`);
      return {
        id: `protocol:${p}`,
        kind: "protocol",
        mode: "both",
        effect: effectOf(s),
        protocols: [p],
        evidence: [
          `${p} fails on ${s.bad} of ${s.observed} pairs across the fleet${lossNote(s)}`,
          ...(others.length > 0 ? [`the other protocols are fine: ${others.join(", ")}`] : []),
        ],
        scope: [{ sources: null, destinations: null }],
      };
    }
    case "pair":
      return describePair(ctx, c, d.a, d.b, d.variant, names, st);
  }
}

function zoneBlocks(space: CandidateSpace, zones: number[], others: number[] | null): ScopeBlock[] {
  const o = space.obs;
  const inZones = (zs: number[] | null, invert: boolean) =>
    o.nodes
      .filter((_, i) => (zs === null ? true : zs.includes(o.zoneOf[i] ?? -1)) !== invert)
      .map((n) => n.name);
  const a = inZones(zones, false);
  const b = others === null ? inZones(zones, true) : inZones(others, false);
  return [
    { sources: a, destinations: b },
    { sources: b, destinations: a },
  ];
}

export type { SuspectKind, SuspectMode };
