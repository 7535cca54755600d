import type { TopologyAgent, TopologySnapshot } from "@svc/protocol";
import type { NodeSource } from "../nodes/node-source.ts";
import type { RegisteredAgent } from "../registry/agent.ts";

/**
 * The topology agent entry (spec §2.2): `labels` omitted when the agent sent none, each port omitted when the
 * agent reported 0; capabilities verbatim.
 */
export function topologyAgent(a: RegisteredAgent): TopologyAgent {
  const out: TopologyAgent = {
    id: a.id,
    nodeName: a.nodeName,
    podIP: a.address,
    zone: a.zone,
    capabilities: [...a.capabilities],
  };
  if (Object.keys(a.labels).length > 0) out.labels = { ...a.labels };
  if (a.httpPort > 0) out.httpPort = a.httpPort;
  if (a.udpPort > 0) out.udpPort = a.udpPort;
  if (a.metricsPort > 0) out.metricsPort = a.metricsPort;
  return out;
}

/**
 * The topology snapshot (spec §2.3). Full mesh (`probePlan` undefined): no `probePlan` key. `timestamp` is
 * RFC 3339 (UTC, ms precision).
 */
export function topologySnapshot(
  agents: readonly RegisteredAgent[],
  nodes: NodeSource,
  now: Date = new Date(),
  probePlan?: Record<string, string[]>,
): TopologySnapshot {
  const snap: TopologySnapshot = {
    nodes: nodes.list(),
    agents: agents.map(topologyAgent),
    timestamp: now.toISOString(),
  };
  if (probePlan !== undefined) snap.probePlan = probePlan;
  return snap;
}
