import dgram from "node:dgram";
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { interfaceMtuFor } from "@svc/native";

/** The local source address the kernel picks toward destination (a connected UDP socket; no packet sent). */
export function sourceAddressFor(destination: string): Promise<string> {
  const s = dgram.createSocket(isIP(destination) === 6 ? "udp6" : "udp4");
  return new Promise<string>((resolve, reject) => {
    s.once("error", reject);
    s.connect(9, destination, () => resolve(s.address().address));
  }).finally(() => s.close());
}

function interfaceOf(address: string): string | undefined {
  const bare = address.split("%")[0];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (addrs?.some((a) => a.address.split("%")[0] === bare)) return name.split(":")[0];
  }
  return undefined;
}

/**
 * MTU of the egress interface toward destination: the interface that owns the source address the kernel picks
 * (its /sys/class/net/<if>/mtu). Unlike IP_MTU on a connected socket this ignores the kernel's learned path MTU
 * (route exception), so a path that shrank and healed is probed at full size again. Falls back to IP_MTU of the
 * route when the interface cannot be identified. Rejects when there is no route.
 */
export async function egressMtu(destination: string): Promise<number> {
  const source = await sourceAddressFor(destination);
  const name = interfaceOf(source);
  if (name) {
    try {
      const mtu = Number.parseInt(await readFile(`/sys/class/net/${name}/mtu`, "utf8"), 10);
      if (Number.isInteger(mtu) && mtu > 0) return mtu;
    } catch {
      // sysfs not mounted for this namespace: fall back below
    }
  }
  return interfaceMtuFor(destination);
}
