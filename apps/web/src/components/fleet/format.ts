/**
 * Words, colours and number formats of fleet health, shared by Matrix, Topology, Node, Pair and Overview.
 * DOM-free, so the node test runner checks it directly.
 */
import type { FleetProtocol, FleetTier, MatrixCell, PeerRow } from "./types.ts";

/** The protocols in the order the switch shows them. */
export const PROTOCOLS: readonly FleetProtocol[] = ["tcp", "udp", "icmp", "pmtu"];

/** Display name of a protocol. */
export const PROTOCOL_LABEL: Record<FleetProtocol, string> = {
  tcp: "TCP",
  udp: "UDP",
  icmp: "ICMP",
  pmtu: "PMTU",
};

/** The `protocol` query value as a protocol; anything else reads as tcp. */
export function parseProtocol(v: unknown): FleetProtocol {
  return typeof v === "string" && (PROTOCOLS as readonly string[]).includes(v) ? (v as FleetProtocol) : "tcp";
}

/** Words people read for a tier. */
export const TIER_LABEL: Record<FleetTier, string> = {
  healthy: "Healthy",
  degraded: "Degraded",
  failing: "Failing",
  nodata: "no data",
  notrun: "Not run",
  unplanned: "Not planned",
};

/** Fill colour of a tier (matrix cells, topology links, badges). */
export const TIER_COLOR: Record<FleetTier, string> = {
  healthy: "#2e9e55",
  degraded: "#e0a400",
  failing: "#c8372d",
  nodata: "#c9ced4",
  notrun: "#e9ecef",
  unplanned: "#ffffff",
};

/** Order of badness: failing > degraded > healthy > the states that say nothing about health. */
export function tierRank(t: FleetTier): number {
  return t === "failing" ? 3 : t === "degraded" ? 2 : t === "healthy" ? 1 : 0;
}

/** A ratio 0-1 as a percentage ("12.5%"), or "—" when absent. */
export function pct(r: number | undefined): string {
  if (r === undefined || !Number.isFinite(r)) return "—";
  const p = r * 100;
  return `${p === 0 || p >= 10 ? p.toFixed(0) : p.toFixed(1)}%`;
}

/** Seconds as milliseconds ("3.2 ms"), or "—" when absent. */
export function ms(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s)) return "—";
  const v = s * 1000;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ms`;
}

/** The short word a matrix cell shows: the PMTU badge, else the tier's word. */
export function cellWord(cell: Pick<MatrixCell, "tier" | "pmtu">): string {
  if (cell.pmtu && cell.tier !== "nodata" && cell.tier !== "notrun" && cell.tier !== "unplanned")
    return cell.pmtu.badge;
  return TIER_LABEL[cell.tier];
}

/** The figures of a cell, one "label: value" line each (hover and focus details, aria-label). */
export function cellFigures(cell: MatrixCell, protocol: FleetProtocol): string[] {
  const out = [`${cell.source} → ${cell.destination}`, `${PROTOCOL_LABEL[protocol]}: ${cellWord(cell)}`];
  if (cell.failRatio !== undefined) out.push(`Fail ratio: ${pct(cell.failRatio)}`);
  if (cell.lossRatio !== undefined) out.push(`Packet loss: ${pct(cell.lossRatio)}`);
  if (cell.pmtu?.bytes !== undefined)
    out.push(`Path MTU / probe: ${cell.pmtu.bytes} / ${cell.pmtu.probeBytes ?? "—"} bytes`);
  if (cell.rttP95Seconds !== undefined) out.push(`RTT p95: ${ms(cell.rttP95Seconds)}`);
  return out;
}

/** The worst row of a peer table: highest tier, then highest fail ratio or loss. */
function worstOf(rows: readonly PeerRow[]): [number, number] {
  let tier = 0;
  let ratio = 0;
  for (const r of rows) {
    const t = tierRank(r.tier);
    const x = Math.max(r.failRatio ?? 0, r.lossRatio ?? 0);
    if (t > tier || (t === tier && x > ratio)) [tier, ratio] = [t, x];
  }
  return [tier, ratio];
}

/** The Node page's default direction: To peers, unless inbound (From peers) is strictly worse (spec §4.4). */
export function defaultDirection(to: readonly PeerRow[], from: readonly PeerRow[]): "to" | "from" {
  const [tt, tr] = worstOf(to);
  const [ft, fr] = worstOf(from);
  return ft > tt || (ft === tt && fr > tr) ? "from" : "to";
}
