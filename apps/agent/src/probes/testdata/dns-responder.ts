import dgram from "node:dgram";

/** A tiny authoritative DNS responder for tests: answers A/AAAA from a table, NXDOMAIN otherwise. */
export interface DnsResponder {
  port: number;
  /** every question name received, lower-case, without trailing dot */
  queries: { name: string; type: number }[];
  close(): Promise<void>;
}

export interface DnsRecords {
  a?: Record<string, string>;
  aaaa?: Record<string, string>;
  /** names for which no answer is ever sent */
  silent?: string[];
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  for (;;) {
    const len = msg[i] ?? 0;
    i++;
    if (len === 0) break;
    labels.push(msg.subarray(i, i + len).toString("ascii"));
    i += len;
  }
  return { name: labels.join(".").toLowerCase(), end: i };
}

function ipBytes(ip: string, type: number): Buffer {
  if (type === 1) return Buffer.from(ip.split(".").map(Number));
  const [head = "", tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = [...h, ...new Array(8 - h.length - t.length).fill("0"), ...t];
  const b = Buffer.alloc(16);
  for (const [k, g] of groups.entries()) b.writeUInt16BE(Number.parseInt(g, 16), k * 2);
  return b;
}

export async function startDnsResponder(records: DnsRecords): Promise<DnsResponder> {
  const socket = dgram.createSocket("udp4");
  const queries: { name: string; type: number }[] = [];
  socket.on("message", (msg, rinfo) => {
    if (msg.length < 12) return;
    const q = readName(msg, 12);
    const type = msg.readUInt16BE(q.end);
    queries.push({ name: q.name, type });
    if (records.silent?.includes(q.name)) return;
    const question = msg.subarray(12, q.end + 4);
    const a = records.a?.[q.name];
    const aaaa = records.aaaa?.[q.name];
    const known = a !== undefined || aaaa !== undefined;
    const value = type === 1 ? a : type === 28 ? aaaa : undefined;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8400 | (known ? 0 : 3), 2); // QR, AA, rcode NOERROR/NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(value ? 1 : 0, 6);
    const parts: Buffer[] = [header, question];
    if (value) {
      const rdata = ipBytes(value, type);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(30, 6);
      rr.writeUInt16BE(rdata.length, 10);
      parts.push(rr, rdata);
    }
    socket.send(Buffer.concat(parts), rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
  return {
    port: socket.address().port,
    queries,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
