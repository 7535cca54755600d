import { readFileSync } from "node:fs";
import { run, tryRun } from "./exec.ts";

/**
 * A lab network: one Linux bridge in the root namespace and one network namespace per lab node, each joined to
 * the bridge by a veth pair. Addresses come from 198.18.<index>.0/24 (RFC 2544 benchmarking space): the bridge
 * is .1, nodes are .10 upwards. Namespaces get only the connected route: no route off the machine.
 */
export interface LabNetworkNode {
  name: string;
  namespace: string;
  address: string;
  /** veth end inside the namespace */
  device: string;
}

export const LAB_PREFIX_LEN = 24;

export function labSubnet(index: number): string {
  return `198.18.${index}.0/${LAB_PREFIX_LEN}`;
}
export function bridgeAddress(index: number): string {
  return `198.18.${index}.1`;
}
export function bridgeName(index: number): string {
  return `svcbr${index}`;
}
export function namespaceName(index: number, node: string): string {
  return `svc${index}-${node}`;
}

/** Claims the lowest free lab index by creating its bridge (creation is atomic, so concurrent labs never share). */
export async function createBridge(): Promise<number> {
  for (let index = 1; index < 255; index++) {
    if (await tryRun("ip", ["link", "add", bridgeName(index), "type", "bridge"])) {
      const ifindex = bridgeIfindex(index);
      try {
        await run("ip", [
          "addr",
          "add",
          `${bridgeAddress(index)}/${LAB_PREFIX_LEN}`,
          "dev",
          bridgeName(index),
        ]);
        await run("ip", ["link", "set", bridgeName(index), "up"]);
      } catch (err) {
        // removed under us (`svc lab down --all` elsewhere, say) before it was set up: take the next index
        if (ifindex === undefined || bridgeIfindex(index) !== ifindex) continue;
        throw err;
      }
      return index;
    }
  }
  throw new Error("no free lab index: 254 lab bridges exist (run `svc lab down --all`)");
}

/** Creates a namespace for `node` with a veth into the bridge and the node's address. */
export async function addNode(index: number, node: string, ordinal: number): Promise<LabNetworkNode> {
  const ns = namespaceName(index, node);
  const address = `198.18.${index}.${10 + ordinal}`;
  const host = `svh${index}n${ordinal}`;
  const peer = `svp${index}n${ordinal}`;
  await run("ip", ["netns", "add", ns]);
  await run("ip", ["link", "add", host, "type", "veth", "peer", "name", peer]);
  await run("ip", ["link", "set", peer, "netns", ns]);
  await run("ip", ["link", "set", host, "master", bridgeName(index), "up"]);
  await run("ip", ["-n", ns, "link", "set", "lo", "up"]);
  await run("ip", ["-n", ns, "link", "set", peer, "name", "eth0"]);
  await run("ip", ["-n", ns, "addr", "add", `${address}/${LAB_PREFIX_LEN}`, "dev", "eth0"]);
  await run("ip", ["-n", ns, "link", "set", "eth0", "up"]);
  // Unprivileged ICMP sockets for every group, as most distributions configure it.
  await run("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=0 2147483647"]);
  return { name: node, namespace: ns, address, device: "eth0" };
}

/** Removes the namespaces and the bridge of a lab; never throws (best effort teardown). */
export async function destroyNetwork(index: number, namespaces: readonly string[]): Promise<void> {
  for (const ns of namespaces) {
    await tryRun("ip", ["netns", "del", ns]);
  }
  await tryRun("ip", ["link", "del", bridgeName(index)]);
}

/** Lists lab namespaces of a lab index that exist on this machine (for `svc lab down`). */
export async function listLabNamespaces(index?: number): Promise<string[]> {
  const { stdout } = await run("ip", ["netns", "list"]);
  const names = stdout
    .split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => /^svc\d+-/.test(n));
  return index === undefined ? names : names.filter((n) => n.startsWith(`svc${index}-`));
}

/** The ifindex of lab `index`'s bridge, or undefined when there is no such bridge. */
export function bridgeIfindex(index: number): number | undefined {
  try {
    return Number(readFileSync(`/sys/class/net/${bridgeName(index)}/ifindex`, "utf8").trim());
  } catch {
    return undefined;
  }
}

/** Lists lab bridges on this machine. */
export async function listLabBridges(): Promise<number[]> {
  const { stdout } = await run("ip", ["-o", "link", "show", "type", "bridge"]);
  const out: number[] = [];
  for (const m of stdout.matchAll(/\d+: svcbr(\d+)[:@]/g)) out.push(Number(m[1]));
  return out;
}
