import { encodePeerList, type PeerList, peerWireSize } from "@svc/protocol";

/**
 * Largest PeerList the controller sends, bytes. Agents (and gRPC clients generally) refuse messages over 4 MiB by
 * default; a peer list over that limit fails the receiving stream. 3 MiB leaves room for the envelope and holds
 * about 15,000 ordinary peers in one message.
 */
export const PEER_LIST_MAX_BYTES = 3 * 1024 * 1024;

/** Encoded size of a PeerList, bytes (peers' cached encodings are reused). */
export function peerListSize(list: PeerList): number {
  const envelope = encodePeerList({ ...list, peers: [] }).length;
  let size = envelope;
  for (const p of list.peers) size += peerWireSize(p);
  return size;
}

/**
 * Splits a list for a watcher that takes deltas into messages of at most `maxBytes` each (a single peer larger
 * than that still goes alone; registration bounds keep peers far smaller). The first message is `list` with
 * its first peers (and `delta` and `removed` as given); every further one is a delta adding the next peers, with
 * the same `sparse`, `planned` and `zone`. Applied in order they give what `list` alone would. Returns [list]
 * when it fits.
 */
export function splitPeerList(list: PeerList, maxBytes: number): PeerList[] {
  if (peerListSize(list) <= maxBytes) return [list];
  const envelope = encodePeerList({ ...list, peers: [] }).length;
  const followEnvelope = encodePeerList({ ...list, peers: [], removed: [], delta: true }).length;
  const out: PeerList[] = [];
  let current: PeerList = { ...list, peers: [] };
  let used = envelope;
  for (const p of list.peers) {
    const n = peerWireSize(p);
    if (current.peers.length > 0 && used + n > maxBytes) {
      out.push(current);
      current = { ...list, peers: [], removed: [], delta: true };
      used = followEnvelope;
    }
    current.peers.push(p);
    used += n;
  }
  out.push(current);
  return out;
}
