import { run, tryRun } from "../exec.ts";
import {
  linkDevice,
  PATH_NAMESPACE_RE,
  PATH_V4_PREFIX,
  PATH_V6_PREFIX,
  pathNamespace,
} from "./addressing.ts";
import type { PathHop, PathLink } from "./path-topology.ts";

/** The link alias that remembers a link's created MTU (for heal() from another process). */
const MTU_ALIAS = "svc-mtu=";

const SETTLE_SYSCTLS = ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"];
const NO_RATE_LIMIT = [
  "net.ipv4.icmp_ratelimit=0",
  "net.ipv6.icmp.ratelimit=0",
  "net.ipv4.icmp_msgs_per_sec=100000",
  "net.ipv4.icmp_msgs_burst=10000",
];

/**
 * Creates the namespaces (A's already exists: it claimed the index), links, addresses and routes of a planned
 * path. Throws on the first failure; the caller tears down.
 */
export async function buildPath(
  hops: readonly PathHop[],
  links: readonly PathLink[],
  icmpRateLimit: boolean,
): Promise<void> {
  const ns = (name: string): string => hops.find((h) => h.name === name)?.namespace ?? name;
  const last = hops.length - 1;
  for (const [h, hop] of hops.entries()) {
    if (h > 0) await run("ip", ["netns", "add", hop.namespace]);
    const sysctls = ["net.ipv4.ping_group_range=0 2147483647", ...SETTLE_SYSCTLS];
    if (!icmpRateLimit) sysctls.push(...NO_RATE_LIMIT);
    if (h > 0 && h < last) sysctls.push("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1");
    await run("ip", ["netns", "exec", hop.namespace, "sysctl", "-q", "-w", ...sysctls]);
  }
  for (const link of links) {
    const dev = linkDevice(link.index);
    const [l, r] = [ns(link.left), ns(link.right)];
    await run(
      "ip",
      ["-n", l, "link", "add", dev, "mtu", String(link.mtu), "type", "veth", "peer"].concat([
        "name",
        dev,
        "mtu",
        String(link.mtu),
        "netns",
        r,
      ]),
    );
  }
  for (const [h, hop] of hops.entries()) {
    const lines = ["link set lo up"];
    for (const end of [hop.left, hop.right]) {
      if (!end) continue;
      lines.push(`addr add ${end.v4}/${PATH_V4_PREFIX} dev ${end.device}`);
      if (end.v6) lines.push(`addr add ${end.v6}/${PATH_V6_PREFIX} dev ${end.device} nodad`);
      const mtu = links[end.link]?.mtu ?? 1500;
      lines.push(`link set ${end.device} alias ${MTU_ALIAS}${mtu}`, `link set ${end.device} up`);
    }
    for (const link of links) {
      // Links beyond the neighbours go via the neighbour on that side.
      const via = link.index < h - 1 ? hops[h - 1]?.right : link.index > h ? hops[h + 1]?.left : undefined;
      if (!via) continue;
      lines.push(`route add ${link.v4Subnet} via ${via.v4}`);
      if (link.v6Subnet && via.v6) lines.push(`route add ${link.v6Subnet} via ${via.v6}`);
    }
    await run("ip", ["-n", hop.namespace, "-batch", "-"], { input: `${lines.join("\n")}\n` });
  }
}

/** Deletes every path-lab namespace on this machine (svcp<N>-*), e.g. after a crashed test. Returns how many. */
export async function destroyAllPathLabs(): Promise<number> {
  const { stdout } = await run("ip", ["netns", "list"]);
  const names = stdout
    .split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => PATH_NAMESPACE_RE.test(n));
  for (const n of names) await tryRun("ip", ["netns", "del", n]);
  return names.length;
}

/** What an existing path lab looks like (for attaching from another process, e.g. `svc lab path fault`). */
export interface ExistingPathLab {
  routers: number;
  ipv6: boolean;
  /** MTUs the links were created with */
  createdMtu: number[];
  /** MTUs the links have now */
  currentMtu: number[];
}

/** Reads path lab `index` from the machine; throws when it does not exist. */
export async function readPathLab(index: number): Promise<ExistingPathLab> {
  const { stdout } = await run("ip", ["netns", "list"]);
  const prefix = `${pathNamespace(index, "r")}`;
  const names = stdout.split("\n").map((l) => l.split(" ")[0] ?? "");
  if (!names.includes(pathNamespace(index, "A")) || !names.includes(pathNamespace(index, "B"))) {
    throw new Error(`no path lab ${index} on this machine`);
  }
  const routers = names.filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length))).length;
  const createdMtu: number[] = [];
  const currentMtu: number[] = [];
  for (let link = 0; link <= routers; link++) {
    const left = pathNamespace(index, link === 0 ? "A" : `R${link}`);
    const out = (await run("ip", ["-n", left, "-o", "link", "show", linkDevice(link)])).stdout;
    const now = Number(/ mtu (\d+)/.exec(out)?.[1] ?? 1500);
    currentMtu.push(now);
    createdMtu.push(Number(new RegExp(`alias ${MTU_ALIAS}(\\d+)`).exec(out)?.[1] ?? now));
  }
  const v6 = await run("ip", [
    "-n",
    pathNamespace(index, "A"),
    "-6",
    "addr",
    "show",
    "dev",
    linkDevice(0),
    "scope",
    "global",
  ]);
  return { routers, ipv6: v6.stdout.includes("inet6"), createdMtu, currentMtu };
}
