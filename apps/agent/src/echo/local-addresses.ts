import { networkInterfaces } from "node:os";

/** The interface table shape of os.networkInterfaces(). */
export type InterfaceTable = ReturnType<typeof networkInterfaces>;

/** Addresses of this host and the IPv4 subnet broadcast addresses of its interfaces. */
export interface LocalAddressSet {
  /** All interface addresses (IPv4 and IPv6, without zone). */
  own: Set<string>;
  /** IPv4 directed broadcast address of every interface subnet with a prefix shorter than /31. */
  broadcast: Set<string>;
}

function ipv4ToInt(a: string): number {
  const p = a.split(".").map(Number);
  return (((p[0] ?? 0) << 24) | ((p[1] ?? 0) << 16) | ((p[2] ?? 0) << 8) | (p[3] ?? 0)) >>> 0;
}

function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** The directed broadcast address of address/netmask, or undefined for /31 and /32 (no broadcast there). */
export function subnetBroadcast(address: string, netmask: string): string | undefined {
  const mask = ipv4ToInt(netmask);
  if (mask === 0xffffffff || mask === 0xfffffffe) return undefined;
  return intToIpv4((ipv4ToInt(address) | ~mask) >>> 0);
}

/** Computes own and broadcast addresses from an interface table (default: the live one). */
export function localAddresses(table: InterfaceTable = networkInterfaces()): LocalAddressSet {
  const own = new Set<string>();
  const broadcast = new Set<string>();
  for (const infos of Object.values(table)) {
    for (const info of infos ?? []) {
      own.add(info.address.split("%")[0] ?? info.address);
      if (info.family === "IPv4") {
        const b = subnetBroadcast(info.address, info.netmask);
        if (b) broadcast.add(b);
      }
    }
  }
  return { own, broadcast };
}

/** Multicast: 224.0.0.0/4 and ff00::/8. */
export function isMulticast(address: string): boolean {
  if (address.includes(":")) return address.toLowerCase().startsWith("ff");
  const first = Number(address.split(".")[0]);
  return first >= 224 && first <= 239;
}

/** Loopback: 127.0.0.0/8, ::1 and IPv4-mapped 127/8. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  return a.startsWith("127.") || a === "::1" || a.startsWith("::ffff:127.");
}
