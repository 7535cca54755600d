import type { PeerList, PeerMessage } from "./grpc.ts";
import type { Peer } from "./peer.ts";

export { encodePeer, encodePeerList, peerWireSize, withPeerWire } from "./peer-list-wire.ts";

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

/**
 * Applies one WatchPeers message to the peers a watcher holds, keyed by agent id: a full list (`delta` false or
 * absent) replaces the whole set; a delta replaces or adds each of `peers` and drops each of `removed`. An entry
 * for `self` (the watcher's own agent id) is never kept.
 */
export function applyPeerList(held: Map<string, PeerMessage>, list: PeerList, self?: string): void {
  if (list.delta !== true) held.clear();
  else for (const id of list.removed ?? []) held.delete(id);
  for (const p of list.peers) if (p.agent_id !== self) held.set(p.agent_id, p);
}

/** The order of peer lists on both sides: node name, then agent id (plain code-unit comparison). */
export function byNodeThenId(a: PeerMessage, b: PeerMessage): number {
  return compare(a.node_name, b.node_name) || compare(a.agent_id, b.agent_id);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
