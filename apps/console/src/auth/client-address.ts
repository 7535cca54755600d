/**
 * The client address of a request (spec §5.7): the TCP peer, or, when the peer is a trusted proxy, the
 * `X-Forwarded-For` list (all header lines read as one list) walked from the right past trusted proxies. A non-IP
 * hop stops the walk at the last address known good. Never identity, only budgets and audit.
 */
import { type Cidr, cidrContains, ipToBigInt, parseCidr } from "@svc/core";

/** Strips the IPv4-mapped IPv6 form ("::ffff:10.0.0.1" -> "10.0.0.1"). */
export function normalizeIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m?.[1] ?? ip;
}

/** Parses CIDR texts (already validated by the config loader). */
export function parseCidrs(texts: readonly string[]): Cidr[] {
  return texts.flatMap((t) => {
    const c = parseCidr(t);
    return c ? [c] : [];
  });
}

function trusted(ip: string, proxies: readonly Cidr[]): boolean {
  return proxies.some((c) => cidrContains(c, ip));
}

/**
 * Resolves the client address. `peer` is the TCP peer; `forwardedFor` the X-Forwarded-For header value(s);
 * `proxies` the trusted proxy CIDRs.
 */
export function clientAddress(
  peer: string,
  forwardedFor: string | readonly string[] | undefined,
  proxies: readonly Cidr[],
): string {
  let client = normalizeIp(peer);
  if (forwardedFor === undefined || !trusted(client, proxies)) return client;
  const hops = (typeof forwardedFor === "string" ? [forwardedFor] : forwardedFor)
    .flatMap((line) => line.split(","))
    .map((h) => h.trim())
    .filter((h) => h !== "");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i] ?? "");
    if (!ipToBigInt(hop)) break;
    client = hop;
    if (!trusted(hop, proxies)) break;
  }
  return client;
}

/** The budget key of an address: IPv4 as is, IPv6 by its /64. */
export function addressBudgetKey(ip: string): string {
  const a = ipToBigInt(ip);
  if (!a || a.family === 4) return ip;
  const prefix = a.value >> 64n;
  const groups = [48n, 32n, 16n, 0n].map((s) => ((prefix >> s) & 0xffffn).toString(16));
  return `${groups.join(":")}::/64`;
}
