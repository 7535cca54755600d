import { createSocket, type Socket } from "node:dgram";

/**
 * A tiny authoritative DNS responder for the lab, so the dns checker queries a resolver the lab runs and never
 * the machine's. Answers A (and AAAA) queries for the names it holds, NXDOMAIN for any other name.
 */
export class LabDnsServer {
  private socket: Socket | undefined;
  private readonly records = new Map<string, string[]>();

  constructor(records: Record<string, string | string[]>) {
    for (const [name, addr] of Object.entries(records)) this.set(name, addr);
  }

  /** Sets the addresses of a name (absolute or not; stored lower-case without the trailing dot). */
  set(name: string, addresses: string | string[]): void {
    this.records.set(normalise(name), Array.isArray(addresses) ? addresses : [addresses]);
  }

  async start(address: string, port: number): Promise<number> {
    const socket = createSocket(address.includes(":") ? "udp6" : "udp4");
    this.socket = socket;
    socket.on("message", (msg, rinfo) => {
      const reply = this.answer(msg);
      if (reply) socket.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, address, () => resolve());
    });
    return socket.address().port;
  }

  stop(): void {
    this.socket?.close();
    this.socket = undefined;
  }

  /** Builds the response to one query message, or undefined for a message that is not a query. */
  answer(msg: Buffer): Buffer | undefined {
    if (msg.length < 12 || (msg[2]! & 0x80) !== 0) return undefined;
    const qd = msg.readUInt16BE(4);
    if (qd !== 1) return undefined;
    const labels: string[] = [];
    let off = 12;
    while (off < msg.length) {
      const len = msg[off]!;
      if (len === 0) break;
      if (len > 63 || off + 1 + len > msg.length) return undefined;
      labels.push(msg.subarray(off + 1, off + 1 + len).toString("ascii"));
      off += 1 + len;
    }
    if (off + 5 > msg.length) return undefined;
    const qtype = msg.readUInt16BE(off + 1);
    const questionEnd = off + 5;
    const name = normalise(labels.join("."));
    const known = this.records.get(name);
    const wanted = (known ?? []).filter((a) =>
      qtype === 28 ? a.includes(":") : qtype === 1 && !a.includes(":"),
    );
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    const rd = msg[2]! & 0x01;
    header[2] = 0x84 | rd; // QR, AA, RD copied
    header[3] = known ? 0 : 3; // NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(wanted.length, 6);
    const answers = wanted.map((a) => record(qtype, a));
    return Buffer.concat([header, msg.subarray(12, questionEnd), ...answers]);
  }
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function record(qtype: number, address: string): Buffer {
  const rdata = qtype === 28 ? ipv6Bytes(address) : Buffer.from(address.split(".").map(Number));
  const rr = Buffer.alloc(12);
  rr.writeUInt16BE(0xc00c, 0); // pointer to the question name
  rr.writeUInt16BE(qtype, 2);
  rr.writeUInt16BE(1, 4);
  rr.writeUInt32BE(5, 6);
  rr.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([rr, rdata]);
}

function ipv6Bytes(address: string): Buffer {
  const [head = "", tail = ""] = address.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}
