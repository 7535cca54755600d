import { putU16, u16 } from "./bytes.ts";

/** ICMP echo request / reply types per family. */
export const ICMP_ECHO_REQUEST = { 4: 8, 6: 128 } as const;
export const ICMP_ECHO_REPLY = { 4: 0, 6: 129 } as const;

/** Internet checksum (RFC 1071) of buf. */
export function internetChecksum(buf: Buffer): number {
  let sum = 0;
  const n = buf.length;
  for (let i = 0; i + 1 < n; i += 2) sum += u16(buf, i);
  if (n % 2 === 1) sum += (buf[n - 1] ?? 0) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * Builds an ICMP(v6) echo request. The checksum is filled for IPv4 (needed by raw sockets, harmless for ping
 * sockets which recompute it); IPv6 checksums need the pseudo-header and are always filled by the kernel.
 */
export function buildEchoRequest(
  family: 4 | 6,
  identifier: number,
  sequence: number,
  payload: Buffer,
): Buffer {
  const b = Buffer.alloc(8 + payload.length);
  b[0] = ICMP_ECHO_REQUEST[family];
  putU16(b, 4, identifier & 0xffff);
  putU16(b, 6, sequence & 0xffff);
  b.set(payload, 8);
  if (family === 4) putU16(b, 2, internetChecksum(b));
  return b;
}

/** A parsed ICMP echo message. */
export interface EchoMessage {
  type: number;
  code: number;
  identifier: number;
  sequence: number;
  payload: Buffer;
}

/** Parses an ICMP message if it is an echo reply of family; undefined otherwise. */
export function parseEchoReply(family: 4 | 6, data: Buffer): EchoMessage | undefined {
  if (data.length < 8 || data[0] !== ICMP_ECHO_REPLY[family]) return undefined;
  return {
    type: data[0],
    code: data[1] ?? 0,
    identifier: u16(data, 4),
    sequence: u16(data, 6),
    payload: data.subarray(8),
  };
}

const ICMP_ERROR_NAMES: Record<string, string> = {
  "4:3:3": "port unreachable",
  "4:3": "destination unreachable",
  "4:11": "time exceeded",
  "6:1:4": "port unreachable",
  "6:1": "destination unreachable",
  "6:2": "packet too big",
  "6:3": "time exceeded",
};

/** A short name for an ICMP(v6) error ("port unreachable", "time exceeded"...), undefined for other types. */
export function icmpErrorName(family: 4 | 6, type: number, code: number): string | undefined {
  return ICMP_ERROR_NAMES[`${family}:${type}:${code}`] ?? ICMP_ERROR_NAMES[`${family}:${type}`];
}
