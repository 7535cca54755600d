import { isIP } from "node:net";

/** Why an advertise address is refused; undefined when it is acceptable. */
export type AddressProblem =
  | "not an IP literal"
  | "unspecified"
  | "loopback"
  | "link-local"
  | "multicast"
  | "broadcast";

function ipv4Octets(addr: string): number[] {
  return addr.split(".").map((p) => Number.parseInt(p, 10));
}

/** Expands an IPv6 literal to its eight 16-bit groups (handles "::" and an embedded dotted IPv4 tail). */
export function ipv6Groups(addr: string): number[] {
  let text = addr;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const o = ipv4Octets(text.slice(lastColon + 1));
    const hi = (((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16);
    const lo = (((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16);
    text = `${text.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const [head = "", rest] = text.split("::");
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const h = parse(head);
  const r = rest === undefined ? [] : parse(rest);
  return [...h, ...Array<number>(Math.max(0, 8 - h.length - r.length)).fill(0), ...r];
}

function ipv4Problem(o: number[], broadcasts: readonly number[]): AddressProblem | undefined {
  // 0.0.0.0/8 is "this network" (RFC 1122): never a host another node can reach
  if (o[0] === 0) return "unspecified";
  if (o[0] === 127) return "loopback";
  // 169.254.0.0/16 holds cloud metadata services (169.254.169.254); never an agent
  if (o[0] === 169 && o[1] === 254) return "link-local";
  if ((o[0] ?? 0) >= 224 && (o[0] ?? 0) <= 239) return "multicast";
  if (o.every((x) => x === 255)) return "broadcast";
  if (broadcasts.includes(toUint32(o))) return "broadcast";
  return undefined;
}

function toUint32(o: readonly number[]): number {
  return (((o[0] ?? 0) << 24) | ((o[1] ?? 0) << 16) | ((o[2] ?? 0) << 8) | (o[3] ?? 0)) >>> 0;
}

/** The four octets held by 16-bit groups `hi` and `lo`. */
function octets(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

/** Bits [from, from + 32) of an IPv6 address (eight groups), skipping bits 64-71 (RFC 6052's "u" octet). */
function rfc6052Octets(g: readonly number[], prefixBits: number): number[] {
  const bytes = g.flatMap((x) => [x >> 8, x & 0xff]);
  const out: number[] = [];
  for (let i = prefixBits / 8; out.length < 4; i++) if (i !== 8) out.push(bytes[i] ?? 0);
  return out;
}

/**
 * The IPv4 addresses an IPv6 address stands for when the kernel (or a translator on the path) routes it: the
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64
 * well-known (64:ff9b::/96) and local-use (64:ff9b:1::/48, at every RFC 6052 prefix length it can hold) and 6to4
 * (2002:AABB:CCDD::/48) forms; none for any other address.
 */
export function embeddedIpv4(g: readonly number[]): number[][] {
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const tail = octets(g[6] ?? 0, g[7] ?? 0);
  if (zero(0, 5) && g[5] === 0xffff) return [tail];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [tail];
  // ::a.b.c.d, but not :: and ::1 (unspecified and loopback in their own right)
  if (zero(0, 6) && !(g[6] === 0 && ((g[7] ?? 0) === 0 || g[7] === 1))) return [tail];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [tail];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return [48, 56, 64, 96].map((p) => rfc6052Octets(g, p));
  if (g[0] === 0x2002) return [octets(g[1] ?? 0, g[2] ?? 0)];
  return [];
}

/** Options of advertiseAddressProblem. */
export interface AddressRules {
  /**
   * IPv4 prefixes known to be on the path (CIDR, e.g. the controller's own interfaces' subnets): their directed
   * broadcast address (the all-ones host of a prefix shorter than /31) is refused too
   */
  knownPrefixes?: readonly string[];
}

/** The directed broadcast addresses (as uint32) of the IPv4 prefixes among `cidrs` shorter than /31. */
function directedBroadcasts(cidrs: readonly string[]): number[] {
  const out: number[] = [];
  for (const cidr of cidrs) {
    const [ip = "", bitsText = ""] = cidr.split("/");
    const bits = Number(bitsText);
    if (isIP(ip) !== 4 || !Number.isInteger(bits) || bits < 0 || bits > 30) continue;
    const host = bits === 0 ? 0xffffffff : (1 << (32 - bits)) - 1;
    out.push((toUint32(ipv4Octets(ip)) | host) >>> 0);
  }
  return out;
}

/**
 * Classifies an address an agent advertises (spec §8.2 `agent.advertiseAddress`, and the controller's
 * registration check): it must be an IP literal and not unspecified (0.0.0.0/8, ::), loopback, link-local
 * (169.254.0.0/16, fe80::/10), multicast or broadcast (255.255.255.255, and the directed
 * broadcast of each of `rules.knownPrefixes`). An IPv6 address is also judged as the IPv4 address it stands for
 * (embeddedIpv4: mapped, compatible, translated, NAT64 and 6to4 forms), as the kernel would route it.
 * Returns undefined when acceptable.
 */
export function advertiseAddressProblem(
  address: string,
  rules: AddressRules = {},
): AddressProblem | undefined {
  const broadcasts = directedBroadcasts(rules.knownPrefixes ?? []);
  const family = isIP(address);
  if (family === 4) return ipv4Problem(ipv4Octets(address), broadcasts);
  if (family !== 6) return "not an IP literal";
  const g = ipv6Groups(address.toLowerCase());
  for (const v4 of embeddedIpv4(g)) {
    const problem = ipv4Problem(v4, broadcasts);
    if (problem !== undefined) return problem;
  }
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  if (((g[0] ?? 0) & 0xffc0) === 0xfe80) return "link-local";
  if (((g[0] ?? 0) & 0xff00) === 0xff00) return "multicast";
  return undefined;
}
