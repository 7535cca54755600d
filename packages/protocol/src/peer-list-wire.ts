import type { PeerList, PeerMessage } from "./grpc.ts";

/** Symbol under which a PeerMessage may carry its own encoding (see `withPeerWire`). */
const PEER_WIRE: unique symbol = Symbol("svc.peerWire");

type WiredPeer = PeerMessage & { [PEER_WIRE]?: Uint8Array };

/**
 * Returns `m` carrying its svc.v1.Peer encoding, so `encodePeerList` copies bytes instead of encoding the peer
 * again for every watcher. The message must not be mutated afterwards (the encoding would be stale).
 */
export function withPeerWire(m: PeerMessage): PeerMessage {
  // not enumerable: copies, comparisons and JSON of the message do not see it
  Object.defineProperty(m, PEER_WIRE, { value: encodePeer(m), enumerable: false });
  return m;
}

/** Bytes a peer takes inside an encoded PeerList (its encoding plus the field's tag and length prefix). */
export function peerWireSize(p: PeerMessage): number {
  const n = ((p as WiredPeer)[PEER_WIRE] ?? encodePeer(p)).length;
  return 1 + varintLength(n) + n;
}

function varintLength(n: number): number {
  let len = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 128)) len++;
  return len;
}

/**
 * Encodes a PeerList as svc.v1.PeerList wire bytes (what protobuf would produce, fields in number order, zero
 * values omitted). Peers prepared by `withPeerWire` are copied, others encoded on the spot.
 */
export function encodePeerList(list: PeerList): Buffer {
  const peers = list.peers.map((p) => (p as WiredPeer)[PEER_WIRE] ?? encodePeer(p));
  const w = new Writer(peers.reduce((n, b) => n + b.length + 6, 64 + list.zone.length * 3));
  for (const b of peers) w.bytes(1, b);
  if (list.sparse) w.varintField(2, 1);
  for (const name of list.planned) w.string(3, name, true);
  w.string(4, list.zone);
  if (list.delta === true) w.varintField(5, 1);
  for (const id of list.removed ?? []) w.string(6, id, true);
  return w.finish();
}

/** svc.v1.Peer wire bytes. */
export function encodePeer(m: PeerMessage): Uint8Array {
  const w = new Writer(256);
  w.string(1, m.agent_id);
  w.string(2, m.node_name);
  w.string(3, m.address);
  w.string(4, m.zone);
  for (const [k, v] of Object.entries(m.labels)) {
    const entry = new Writer(k.length * 3 + v.length * 3 + 12);
    entry.string(1, k);
    entry.string(2, v);
    w.bytes(5, entry.finish(), true);
  }
  for (const c of m.capabilities) w.string(6, c, true);
  w.varintField(7, m.http_port);
  w.varintField(8, m.udp_port);
  return w.finish();
}

class Writer {
  #buf: Buffer;
  #pos = 0;

  constructor(size: number) {
    this.#buf = Buffer.allocUnsafe(Math.max(16, size));
  }

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  #varint(v: number): void {
    this.#ensure(10);
    let x = v;
    while (x > 0x7f) {
      this.#buf[this.#pos++] = (x & 0x7f) | 0x80;
      x = Math.floor(x / 128);
    }
    this.#buf[this.#pos++] = x;
  }

  varintField(field: number, v: number): void {
    if (v === 0) return;
    this.#varint(field << 3);
    this.#varint(v);
  }

  /** A length-delimited field; empty values are omitted unless `always` (repeated and map entries keep them). */
  bytes(field: number, b: Uint8Array, always = true): void {
    if (b.length === 0 && !always) return;
    this.#varint((field << 3) | 2);
    this.#varint(b.length);
    this.#ensure(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }

  string(field: number, s: string, always = false): void {
    if (s.length === 0 && !always) return;
    const max = s.length * 3;
    this.#varint((field << 3) | 2);
    if (max < 128) {
      // one length byte suffices: write the text first, then fill in its length
      this.#ensure(1 + max);
      const at = this.#pos++;
      const n = this.#buf.write(s, this.#pos, "utf8");
      this.#buf[at] = n;
      this.#pos += n;
      return;
    }
    const b = Buffer.from(s, "utf8");
    this.#varint(b.length);
    this.#ensure(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }

  finish(): Buffer {
    return this.#buf.subarray(0, this.#pos);
  }
}
