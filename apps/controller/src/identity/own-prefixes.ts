import { networkInterfaces } from "node:os";

/**
 * The IPv4 prefixes of this host's interfaces (CIDR), loopback left out: an agent advertising the directed
 * broadcast address of one of them is refused (advertiseAddressProblem's knownPrefixes).
 */
export function ownIpv4Prefixes(ifaces = networkInterfaces()): string[] {
  const out: string[] = [];
  for (const list of Object.values(ifaces))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal && a.cidr) out.push(a.cidr);
  return out;
}
