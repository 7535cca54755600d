/** The wire form of a registered agent as a peer, and its change-detection key. */
import type { PeerMessage } from "@svc/protocol";
import type { RegisteredAgent } from "../registry/agent.ts";

/** The wire form of an agent as a peer: never carries metricsPort. */
export function peerMessage(a: RegisteredAgent): PeerMessage {
  return {
    agent_id: a.id,
    node_name: a.nodeName,
    address: a.address,
    zone: a.zone,
    labels: { ...a.labels },
    capabilities: [...a.capabilities],
    http_port: a.httpPort,
    udp_port: a.udpPort,
  };
}

/** Canonical form of a peer (label order ignored) for change detection. */
export function peerKey(m: PeerMessage): string {
  const labels = Object.keys(m.labels)
    .sort()
    .map((k) => [k, m.labels[k]]);
  return JSON.stringify([
    m.agent_id,
    m.node_name,
    m.address,
    m.zone,
    labels,
    m.capabilities,
    m.http_port,
    m.udp_port,
  ]);
}
