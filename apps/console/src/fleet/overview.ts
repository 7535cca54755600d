/**
 * The fleet overview (GET /api/v1/fleet/overview) and topology (GET /api/v1/fleet/topology), both built from the
 * per-protocol matrices. missingAgents = inventory nodes without an agent (the controller's expected minus
 * registered, read from its node inventory). Topology links: worst tier over tcp/udp/icmp per ordered pair,
 * leaving out pairs unplanned or not run on every one of them.
 */
import type {
  FleetMatrix,
  FleetOverview,
  FleetProtocol,
  FleetTopology,
  PairCounts,
  TopologyLink,
  TopologyNode,
  WorstPair,
} from "@svc/contract";
import type { FigureMap } from "./figure-map.ts";
import type { FleetView } from "./fleet-view.ts";
import { buildMatrix } from "./matrix.ts";
import { isScored, TIER_RANK, worstTier } from "./tiers.ts";

/** Worst pairs listed on the overview. */
export const WORST_PAIRS = 10;

/** The overview from the four matrices. */
export function buildOverview(
  view: FleetView,
  matrices: Readonly<Record<FleetProtocol, FleetMatrix>>,
  now: Date,
): FleetOverview {
  const pairs = {} as Record<FleetProtocol, PairCounts>;
  const bad: WorstPair[] = [];
  for (const [protocol, m] of Object.entries(matrices) as [FleetProtocol, FleetMatrix][]) {
    let monitored = 0;
    let failing = 0;
    for (const c of m.cells) {
      if (isScored(c.tier)) monitored++;
      if (c.tier === "failing") failing++;
      if (c.tier !== "failing" && c.tier !== "degraded") continue;
      const w: WorstPair = { source: c.source, destination: c.destination, protocol, tier: c.tier };
      if (c.failRatio !== undefined) w.failRatio = c.failRatio;
      if (c.lossRatio !== undefined) w.lossRatio = c.lossRatio;
      if (c.pmtu !== undefined) w.pmtu = c.pmtu;
      bad.push(w);
    }
    pairs[protocol] = { monitored, failing };
  }
  const ratio = (w: WorstPair) => Math.max(w.failRatio ?? 0, w.lossRatio ?? 0);
  bad.sort((a, b) => TIER_RANK[b.tier] - TIER_RANK[a.tier] || ratio(b) - ratio(a));
  const agentNodes = new Set(view.agents.map((a) => a.name));
  return {
    generatedAt: now.toISOString(),
    agents: view.agents.length,
    missingAgents: view.nodes.filter((n) => !agentNodes.has(n.name)).length,
    pairs,
    worstPairs: bad.slice(0, WORST_PAIRS),
  };
}

/**
 * The topology from the tcp, udp and icmp matrices (each link's tier is their worst), each link carrying the pair's
 * path MTU reading from the pmtu matrix when one is given and has it.
 */
export function buildTopology(
  view: FleetView,
  matrices: readonly FleetMatrix[],
  now: Date,
  pmtu?: FleetMatrix,
): FleetTopology {
  const nodes: TopologyNode[] = [];
  const seen = new Set<string>();
  for (const n of view.nodes) {
    seen.add(n.name);
    nodes.push(topologyNode(view, n.name, n.zone, n.ready));
  }
  for (const a of view.agents) if (!seen.has(a.name)) nodes.push(topologyNode(view, a.name, a.zone, true));
  // matrices may come from snapshots of different moments: join cells by pair, not by position
  const worst = new Map<string, TopologyLink>();
  for (const m of matrices)
    for (const c of m.cells) {
      const k = `${c.source}\n${c.destination}`;
      const prev = worst.get(k);
      if (!prev) worst.set(k, { source: c.source, destination: c.destination, tier: c.tier });
      else prev.tier = worstTier([prev.tier, c.tier]);
    }
  for (const c of pmtu?.cells ?? []) {
    const l = worst.get(`${c.source}\n${c.destination}`);
    if (l && c.pmtu) l.pmtu = c.pmtu;
  }
  const links = [...worst.values()].filter((l) => l.tier !== "unplanned" && l.tier !== "notrun");
  const out: FleetTopology = { generatedAt: now.toISOString(), nodes, links };
  if (view.warmingUp) out.controllerWarmingUp = true;
  return out;
}

/**
 * The topology without a metrics server: the controller's nodes, agents and planned, run links, each link `nodata`
 * and the body marked `figuresAbsent`.
 */
export function topologyWithoutFigures(view: FleetView, now: Date): FleetTopology {
  const none: FigureMap = new Map();
  const matrices = (["tcp", "udp", "icmp"] as const).map((p) => buildMatrix(view, p, none, now));
  return { ...buildTopology(view, matrices, now), figuresAbsent: true };
}

function topologyNode(view: FleetView, name: string, zone: string, ready: boolean): TopologyNode {
  const a = view.byName.get(name);
  const n: TopologyNode = {
    name,
    zone: a?.zone ?? zone,
    ready,
    external: a?.external ?? zone === "external",
  };
  if (a) n.agent = { id: a.id, podIP: a.podIP };
  return n;
}
