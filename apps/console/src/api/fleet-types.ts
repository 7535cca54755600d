/**
 * Request/response types of the console's fleet API (GET /api/v1/fleet/*, POST /api/v1/fleet/check), shared with
 * the web app through web/api-types.ts. Type-only: nothing here exists at runtime.
 * Contract: fields may be added, never renamed or removed.
 */
import type { CheckResult } from "@svc/protocol";

/** The four measured protocols a matrix / node page / pair page is drawn for. */
export type FleetProtocol = "tcp" | "udp" | "icmp" | "pmtu";

/** Health tier of a cell, a link, a peer row or a node. */
export type FleetTier = "healthy" | "degraded" | "failing" | "nodata" | "notrun" | "unplanned";

/** The PMTU badge words shown in PMTU cells. */
export type PmtuBadgeWord = "Full size" | "Reduced" | "Recovering" | "Black hole";

/** PMTU reading of a pair: the badge, the discovered path MTU and the size that was probed. */
export interface PmtuBadge {
  badge: PmtuBadgeWord;
  bytes?: number;
  probeBytes?: number;
}

/** One agent as a matrix row/column. `planes` lists "tcp", "udp", ... from capabilities (all when none given). */
export interface MatrixNode {
  name: string;
  zone: string;
  external: boolean;
  planes: string[];
}

/** One ordered pair of the matrix. */
export interface MatrixCell {
  source: string;
  destination: string;
  tier: FleetTier;
  failRatio?: number;
  lossRatio?: number;
  rttP95Seconds?: number;
  pmtu?: PmtuBadge;
}

/** GET /api/v1/fleet/matrix?protocol=tcp|udp|icmp|pmtu */
export interface FleetMatrix {
  protocol: FleetProtocol;
  generatedAt: string;
  sparse: boolean;
  nodes: MatrixNode[];
  cells: MatrixCell[];
}

/** One node on the topology page. `agent` is absent when no agent is registered on the node. */
export interface TopologyNode {
  name: string;
  zone: string;
  ready: boolean;
  external: boolean;
  agent?: { id: string; podIP: string };
}

/** One directed link: worst tier over tcp/udp/icmp. */
export interface TopologyLink {
  source: string;
  destination: string;
  tier: FleetTier;
}

/** GET /api/v1/fleet/topology */
export interface FleetTopology {
  generatedAt: string;
  nodes: TopologyNode[];
  links: TopologyLink[];
}

/** One peer of a node (To peers: node is the source; From peers: node is the destination). */
export interface PeerRow {
  peer: string;
  tier: FleetTier;
  failRatio?: number;
  lossRatio?: number;
  rttP95Seconds?: number;
  pmtuBytes?: number;
  probeBytes?: number;
}

/** GET /api/v1/fleet/nodes/:name?protocol=... ; `healthPercent` absent when no pair was scored. */
export interface FleetNode {
  name: string;
  zone: string;
  ready: boolean;
  protocol: FleetProtocol;
  tier: FleetTier;
  healthPercent?: number;
  scored: number;
  total: number;
  to: PeerRow[];
  from: PeerRow[];
}

/** The selectable history windows of the pair page. */
export type PairWindow = "15m" | "1h" | "6h" | "24h";

/** One point of a pair's history chart. `t` is epoch seconds. */
export interface PairHistoryPoint {
  t: number;
  /** RTT p95 over the step (tcp: connect time) */
  rttSeconds?: number;
  lossRatio?: number;
  /** added: fail share of probe results over the step (tcp, udp, icmp) */
  failRatio?: number;
  /** added: path MTU that crossed (pmtu) */
  pmtuBytes?: number;
}

/** A pair's health for one protocol plus its history over the requested window. */
export interface PairProtocolHealth {
  tier: FleetTier;
  failRatio?: number;
  lossRatio?: number;
  rttP95Seconds?: number;
  pmtu?: PmtuBadge;
  history: PairHistoryPoint[];
}

/** One MTR hop (from svc_mtr_hop_rtt_seconds). */
export interface MtrHop {
  number: number;
  ip: string;
  rttSeconds: number;
  /** CHANGED (optional): svc_mtr_hop_rtt_seconds carries no loss, so the API leaves it out */
  lossRatio?: number;
}

/** GET /api/v1/fleet/pairs/:source/:destination?window=15m|1h|6h|24h */
export interface FleetPair {
  source: string;
  destination: string;
  protocols: Record<FleetProtocol, PairProtocolHealth>;
  mtr?: { at: string; hops: MtrHop[] };
}

/** Monitored and failing pair counts of one protocol. */
export interface PairCounts {
  monitored: number;
  failing: number;
}

/** One of the worst pairs on the overview. */
export interface WorstPair {
  source: string;
  destination: string;
  protocol: FleetProtocol;
  tier: FleetTier;
  failRatio?: number;
  lossRatio?: number;
}

/** GET /api/v1/fleet/overview ; missingAgents = expected - registered (never negative). */
export interface FleetOverview {
  generatedAt: string;
  agents: number;
  missingAgents: number;
  pairs: Record<FleetProtocol, PairCounts>;
  worstPairs: WorstPair[];
}

/** POST /api/v1/fleet/check request body. */
export interface FleetCheckRequest {
  source: string;
  destination: string;
  type?: "tcp";
}

/** POST /api/v1/fleet/check response 200: the controller's CheckResult (spec §2.5) as it answered. */
export type FleetCheckResult = CheckResult;
