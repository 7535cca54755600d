/**
 * The node page (GET /api/v1/fleet/nodes/:name, spec §4.4): To peers (node as source) and From peers (node as
 * destination) for one protocol. Tier = worst pair tier into and out of the node. Health percent = 100 minus the
 * worst fail ratio or loss over scored pairs, left out when nothing was scored or when the tier rests on something
 * a ratio does not count (RTT, a PMTU badge). `total` counts the pairs that should be measured (planned, plane
 * run); `scored` those with a measurement.
 */
import type { FleetNode, FleetProtocol, FleetTier, MatrixCell, PeerRow } from "@svc/contract";
import type { FigureMap } from "./figure-map.ts";
import type { FleetView } from "./fleet-view.ts";
import { cellOf } from "./matrix.ts";
import { FAILING_RATIO, isScored, TIER_RANK, worstTier } from "./tiers.ts";

function row(peer: string, c: MatrixCell): PeerRow {
  const r: PeerRow = { peer, tier: c.tier };
  if (c.failRatio !== undefined) r.failRatio = c.failRatio;
  if (c.lossRatio !== undefined) r.lossRatio = c.lossRatio;
  if (c.rttP95Seconds !== undefined) r.rttP95Seconds = c.rttP95Seconds;
  if (c.pmtu?.bytes !== undefined) r.pmtuBytes = c.pmtu.bytes;
  if (c.pmtu?.probeBytes !== undefined) r.probeBytes = c.pmtu.probeBytes;
  return r;
}

function ratioTier(ratio: number): FleetTier {
  return ratio >= FAILING_RATIO ? "failing" : ratio > 0 ? "degraded" : "healthy";
}

/** Builds the node view from the figures of pairs out of (`out`) and into (`into`) the node. */
export function buildNode(
  view: FleetView,
  name: string,
  protocol: FleetProtocol,
  out: FigureMap,
  into: FigureMap,
): FleetNode {
  const isAgent = view.byName.has(name);
  const to: PeerRow[] = [];
  const from: PeerRow[] = [];
  if (isAgent) {
    for (const peer of view.agents) {
      if (peer.name === name) continue;
      to.push(row(peer.name, cellOf(view, protocol, out, name, peer.name)));
      from.push(row(peer.name, cellOf(view, protocol, into, peer.name, name)));
    }
  }
  const rows = [...to, ...from];
  const counted = rows.filter((r) => r.tier !== "notrun" && r.tier !== "unplanned");
  const scoredRows = counted.filter((r) => isScored(r.tier));
  const tier = worstTier(
    rows.map((r) => r.tier),
    "nodata",
  );
  const node = view.nodes.find((n) => n.name === name);
  const agent = view.byName.get(name);
  const result: FleetNode = {
    name,
    zone: node?.zone ?? agent?.zone ?? "",
    ready: node?.ready ?? true,
    protocol,
    tier,
    scored: scoredRows.length,
    total: counted.length,
    to,
    from,
  };
  if (scoredRows.length > 0) {
    const worst = Math.max(...scoredRows.map((r) => Math.max(r.failRatio ?? 0, r.lossRatio ?? 0)));
    const worstScored = worstTier(scoredRows.map((r) => r.tier));
    if (TIER_RANK[worstScored] <= TIER_RANK[ratioTier(worst)])
      result.healthPercent = Math.round((1 - worst) * 1000) / 10;
  }
  return result;
}
