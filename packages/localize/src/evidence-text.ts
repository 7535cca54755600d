/** The sentences' small parts: counts per plane, loss, the planes that fail. */
import { protocolName } from "./observations.ts";
import { type ProtocolStats, type ScopeStats, total } from "./scope-stats.ts";
import type { Protocol } from "./types.ts";

export const pct = (x: number) => `${Math.round(x * 100)}%`;
export const ratio = (s: ProtocolStats) => `${s.bad}/${s.observed}`;
export const fine = (s: ProtocolStats) => `${s.observed - s.bad}/${s.observed}`;
export const PLANES: readonly number[] = [0, 1, 2];

/** "tcp 11/11, udp 11/11, icmp 0/11" over the planes that were observed. */
export function perPlane(s: ScopeStats, only: readonly number[] = PLANES): string {
  return only
    .filter((p) => (s[p]?.observed ?? 0) > 0)
    .map((p) => `${protocolName(p)} ${ratio(s[p] as ProtocolStats)}`)
    .join(", ");
}

/** The planes with a failing or lossy cell. */
export function badPlanes(s: ScopeStats, only: readonly number[] = PLANES): Protocol[] {
  return only.filter((p) => (s[p]?.bad ?? 0) > 0).map(protocolName);
}

export function lossNote(t: ProtocolStats): string {
  return t.lossCount > 0 && t.hard * 2 < t.bad
    ? `, losing ${pct(t.lossSum / t.lossCount)} of their packets on average`
    : "";
}

/** fail when most of the failing cells fail outright, loss when most only lose packets */
export const effectOf = (t: ProtocolStats): "fail" | "loss" => (t.hard * 2 >= t.bad ? "fail" : "loss");

export { total };
