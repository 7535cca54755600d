/**
 * A lean reader of the svc.v1.PeerList wire bytes for simulated agents: only the agent ids added/removed, the
 * delta flag and the plan size are decoded, so thousands of simulated agents in one process do not spend the
 * CPU the controller is being measured with on building full peer objects.
 */
export interface PeerWire {
  /** true: apply to the previous list; false: a full list */
  delta: boolean;
  /** agent ids in `peers` (the whole list, or the upserts of a delta) */
  peers: string[];
  /** agent ids in `removed` */
  removed: string[];
  sparse: boolean;
  /** number of `planned` entries */
  planned: number;
}

/** Decodes the PeerList fields a simulated agent needs; unknown fields are skipped. */
export function readPeerWire(buf: Uint8Array): PeerWire {
  const out: PeerWire = { delta: false, peers: [], removed: [], sparse: false, planned: 0 };
  const r = new Reader(buf, 0, buf.length);
  while (r.more()) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === 2) {
      const len = r.varint();
      const start = r.pos;
      r.pos += len;
      if (field === 1) out.peers.push(peerId(buf, start, start + len));
      else if (field === 3) out.planned++;
      else if (field === 6) out.removed.push(utf8(buf, start, start + len));
    } else if (wire === 0) {
      const v = r.varint();
      if (field === 2) out.sparse = v !== 0;
      else if (field === 5) out.delta = v !== 0;
    } else r.skip(wire);
  }
  return out;
}

function peerId(buf: Uint8Array, start: number, end: number): string {
  const r = new Reader(buf, start, end);
  while (r.more()) {
    const tag = r.varint();
    const wire = tag & 7;
    if (wire === 2) {
      const len = r.varint();
      if (tag >>> 3 === 1) return utf8(buf, r.pos, r.pos + len);
      r.pos += len;
    } else r.skip(wire);
  }
  return "";
}

const decoder = new TextDecoder();
function utf8(buf: Uint8Array, start: number, end: number): string {
  // ids are ASCII in the bench; latin1 is the cheap exact decoding for them
  for (let i = start; i < end; i++)
    if ((buf[i] ?? 0) >= 0x80) return decoder.decode(buf.subarray(start, end));
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString("latin1");
}

class Reader {
  pos: number;
  readonly #buf: Uint8Array;
  readonly #end: number;

  constructor(buf: Uint8Array, start: number, end: number) {
    this.#buf = buf;
    this.pos = start;
    this.#end = end;
  }

  more(): boolean {
    return this.pos < this.#end;
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.#buf[this.pos++] ?? 0;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80 || this.pos >= this.#end) return result;
      shift += 7;
    }
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}
