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
function ipv6Groups(addr: string): number[] {
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

function ipv4Problem(o: number[]): AddressProblem | undefined {
  // 0.0.0.0/8 is "this network" (RFC 1122): never a host another node can reach
  if (o[0] === 0) return "unspecified";
  if (o[0] === 127) return "loopback";
  // 169.254.0.0/16 holds cloud metadata services (169.254.169.254); never an agent
  if (o[0] === 169 && o[1] === 254) return "link-local";
  if ((o[0] ?? 0) >= 224 && (o[0] ?? 0) <= 239) return "multicast";
  if (o.every((x) => x === 255)) return "broadcast";
  return undefined;
}

/**
 * Classifies an address an agent advertises (spec §8.2 `agent.advertiseAddress`, and the controller's
 * registration check): it must be an IP literal and not unspecified (0.0.0.0/8, ::), loopback, link-local
 * (169.254.0.0/16, fe80::/10), multicast or broadcast.
 * IPv4-mapped IPv6 literals are judged by their IPv4 address. Returns undefined when acceptable.
 */
export function advertiseAddressProblem(address: string): AddressProblem | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Problem(ipv4Octets(address));
  if (family !== 6) return "not an IP literal";
  const g = ipv6Groups(address.toLowerCase());
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const hi = g[6] ?? 0;
    const lo = g[7] ?? 0;
    return ipv4Problem([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  if (((g[0] ?? 0) & 0xffc0) === 0xfe80) return "link-local";
  if (((g[0] ?? 0) & 0xff00) === 0xff00) return "multicast";
  return undefined;
}
