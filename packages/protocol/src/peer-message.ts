import type { PeerMessage } from "./grpc.ts";
import type { Peer } from "./peer.ts";

/** Converts a wire peer to the probe-side Peer: a port of 0 (not reported) becomes undefined. */
export function peerFromMessage(m: PeerMessage): Peer {
  const peer: Peer = {
    agentId: m.agent_id,
    nodeName: m.node_name,
    address: m.address,
    zone: m.zone,
    labels: { ...m.labels },
    capabilities: [...m.capabilities],
  };
  if (m.http_port > 0) peer.httpPort = m.http_port;
  if (m.udp_port > 0) peer.udpPort = m.udp_port;
  return peer;
}
