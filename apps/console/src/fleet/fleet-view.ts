/**
 * The controller's topology snapshot (spec §2.3) read as a fleet: agents with their planes (spec §2.2: no `plane:`
 * entry at all = every plane), the sparse plan, and which ordered pairs each source is expected to measure.
 */

import type { FleetProtocol } from "@svc/contract";
import type { TopologyNode, TopologySnapshot } from "@svc/protocol";

/** Every plane an agent can run; an agent listing no plane runs them all. */
export const ALL_PLANES = ["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"] as const;

/** One agent as the fleet API sees it. */
export interface FleetAgent {
  name: string;
  zone: string;
  external: boolean;
  planes: string[];
  id: string;
  podIP: string;
}

/** A topology snapshot indexed for the builders. */
export interface FleetView {
  /** agents sorted by node name, one per node (the first registered wins) */
  agents: FleetAgent[];
  byName: Map<string, FleetAgent>;
  nodes: TopologyNode[];
  /** every node name the inventory knows (nodes and agents) */
  known: Set<string>;
  plan?: Record<string, string[]>;
  sparse: boolean;
  /** the controller said it is warming up (its registry may still be filling after a start) */
  warmingUp: boolean;
}

/** Indexes a snapshot. */
export function fleetView(snap: TopologySnapshot): FleetView {
  const byName = new Map<string, FleetAgent>();
  for (const a of snap.agents) {
    if (byName.has(a.nodeName)) continue;
    const planes = a.capabilities.filter((c) => c.startsWith("plane:")).map((c) => c.slice(6));
    byName.set(a.nodeName, {
      name: a.nodeName,
      zone: a.zone,
      external: a.labels?.["svc.io/external"] === "true" || a.zone === "external",
      planes: planes.length > 0 ? planes : [...ALL_PLANES],
      id: a.id,
      podIP: a.podIP,
    });
  }
  const agents = [...byName.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  const known = new Set([...snap.nodes.map((n) => n.name), ...byName.keys()]);
  const view: FleetView = {
    agents,
    byName,
    nodes: snap.nodes,
    known,
    sparse: snap.probePlan !== undefined,
    warmingUp: snap.warmingUp === true,
  };
  if (snap.probePlan) view.plan = snap.probePlan;
  return view;
}

/** True when the plan intends source -> destination (always, on full mesh). */
export function isPlanned(view: FleetView, source: string, destination: string): boolean {
  if (!view.plan) return true;
  // node names index the plan: only its own keys count (a node named `constructor` is not Object's)
  const dests = Object.hasOwn(view.plan, source) ? view.plan[source] : undefined;
  return Array.isArray(dests) && dests.includes(destination);
}

/** True when the agent on `name` runs `protocol`'s plane. */
export function runsPlane(view: FleetView, name: string, protocol: FleetProtocol): boolean {
  return view.byName.get(name)?.planes.includes(protocol) ?? false;
}

/** Source -> the agent destinations it should measure for `protocol` (runs the plane, planned). */
export function expectedPairs(view: FleetView, protocol: FleetProtocol): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const order = new Map(view.agents.map((a, i) => [a.name, i]));
  for (const s of view.agents) {
    if (!s.planes.includes(protocol)) continue;
    if (view.plan) {
      // the plan's own list (a sparse plan: a few per source), not a test of every node
      const listed = Object.hasOwn(view.plan, s.name) ? view.plan[s.name] : undefined;
      const dests = (Array.isArray(listed) ? [...new Set(listed)] : []).filter(
        (d) => d !== s.name && order.has(d),
      );
      dests.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
      out.set(s.name, dests);
      continue;
    }
    out.set(
      s.name,
      view.agents.filter((d) => d.name !== s.name).map((d) => d.name),
    );
  }
  return out;
}
