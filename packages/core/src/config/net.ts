/** IP literal and CIDR helpers shared by config validation and the external-check allowlist. */
import { isIP } from "node:net";

/** A parsed CIDR block; `network` is the address with host bits cleared. */
export interface Cidr {
  family: 4 | 6;
  /** network address as an unsigned integer (32 or 128 bits) */
  network: bigint;
  prefix: number;
  /** the text it was parsed from */
  text: string;
}

/** True when `text` is an IPv4 or IPv6 literal (no brackets, no zone, no port). */
export function isIpLiteral(text: string): boolean {
  return isIP(text) !== 0;
}

/** Converts an IP literal to its family and integer value; undefined when not an IP literal. */
export function ipToBigInt(text: string): { family: 4 | 6; value: bigint } | undefined {
  const family = isIP(text);
  if (family === 4) return { family: 4, value: v4ToBigInt(text) };
  if (family === 6) return { family: 6, value: v6ToBigInt(text) };
  return undefined;
}

function v4ToBigInt(text: string): bigint {
  return text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(text: string): bigint {
  let s = text.replace(/%.*$/, "");
  const m = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (m) {
    const v4 = v4ToBigInt(m[2] ?? "");
    s = `${m[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = s.split("::");
  const h = head ? head.split(":") : [];
  const r = rest ? rest.split(":") : [];
  const groups = rest === undefined ? h : [...h, ...Array<string>(8 - h.length - r.length).fill("0"), ...r];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

/** Parses "a.b.c.d/n" or "v6/n". The prefix length is required. Undefined when it does not parse. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const addr = ipToBigInt(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!addr || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bits = addr.family === 4 ? 32 : 128;
  if (prefix > bits) return undefined;
  const mask = prefixMask(bits, prefix);
  return { family: addr.family, network: addr.value & mask, prefix, text };
}

function prefixMask(bits: number, prefix: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return prefix === 0 ? 0n : (all >> BigInt(bits - prefix)) << BigInt(bits - prefix);
}

/** True when the IP literal `ip` lies inside `cidr` (same family only). */
export function cidrContains(cidr: Cidr | string, ip: string): boolean {
  const c = typeof cidr === "string" ? parseCidr(cidr) : cidr;
  const a = ipToBigInt(ip);
  if (!c || !a || a.family !== c.family) return false;
  return (a.value & prefixMask(c.family === 4 ? 32 : 128, c.prefix)) === c.network;
}

/**
 * Why an IP literal cannot be advertised to peers: "unspecified", "loopback", "multicast", "broadcast",
 * "not an IP literal"; undefined when it is usable. IPv4-mapped IPv6 addresses are judged as IPv4.
 */
export function unusableAddressReason(text: string): string | undefined {
  const a = ipToBigInt(text);
  if (!a) return "not an IP literal";
  let { family, value } = a;
  if (family === 6 && value >> 32n === 0xffffn) {
    family = 4;
    value &= 0xffffffffn;
  }
  if (value === 0n) return "unspecified";
  if (family === 4) {
    if (value >> 24n === 127n) return "loopback";
    if (value >> 28n === 0xen) return "multicast";
    if (value === 0xffffffffn) return "broadcast";
    return undefined;
  }
  if (value === 1n) return "loopback";
  if (value >> 120n === 0xffn) return "multicast";
  return undefined;
}

/** A "host:port" style endpoint split apart. */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * Parses a resolver entry: "ip", "ip:port", "v6" or "[v6]:port". Port defaults to `defaultPort` and must be
 * 1-65535. Returns an error text instead of throwing.
 */
export function parseIpEndpoint(text: string, defaultPort: number): HostPort | { error: string } {
  if (isIP(text) !== 0) return { host: text, port: defaultPort };
  let host: string;
  let portText: string;
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(text);
  if (v6) {
    host = v6[1] ?? "";
    portText = v6[2] ?? "";
    if (isIP(host) !== 6) return { error: "must be an IP or IP:port ([v6]:port)" };
  } else {
    const colon = text.lastIndexOf(":");
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (colon < 0 || isIP(host) !== 4) return { error: "must be an IP or IP:port ([v6]:port)" };
  }
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) return { error: "port must be 1-65535" };
  return { host, port };
}
