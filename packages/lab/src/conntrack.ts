import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { run } from "./exec.ts";

/**
 * Connection tracking in a lab namespace, as a Kubernetes node has it (kube-proxy and most CNIs load rules that
 * match on `ct state`): switching it on, listing the tracked flows, and the TIME_WAIT sockets beside them.
 */

/** One tracked flow, by its original direction. */
export interface TrackedFlow {
  /** tcp, udp, icmp, icmpv6... */
  proto: string;
  /** seconds left before the entry expires */
  timeoutS: number;
  /** tcp only: SYN_SENT, ESTABLISHED, FIN_WAIT, TIME_WAIT, CLOSE... */
  state?: string;
  src: string;
  dst: string;
}

/** A table whose `ct state` rules make the kernel track every flow of the namespace (they accept everything). */
const TRACKING_TABLE = `table inet svc_conntrack {
  chain input { type filter hook input priority 0; ct state established,related accept; }
  chain output { type filter hook output priority 0; ct state established,related accept; }
}
`;

/** Namespace prefix of a command: `ip netns exec NS` (none for "", the current namespace). */
function inNamespace(namespace: string, cmd: string, args: readonly string[]): [string, string[]] {
  return namespace === "" ? [cmd, [...args]] : ["ip", ["netns", "exec", namespace, cmd, ...args]];
}

/** Switches connection tracking on in `namespace` with an nftables `ct state` rule (accepting all traffic). */
export async function enableConntrack(namespace: string): Promise<void> {
  const [cmd, args] = inNamespace(namespace, "nft", ["-f", "-"]);
  await run(cmd, args, { input: TRACKING_TABLE });
}

/**
 * Parses `conntrack -L` output or /proc/net/nf_conntrack (which prefixes `ipv4 2`): one flow a line, the
 * original tuple's first src= and dst=. Lines that are neither are skipped.
 */
export function parseConntrack(text: string): TrackedFlow[] {
  const flows: TrackedFlow[] = [];
  for (const line of text.split("\n")) {
    let t = line.trim().split(/\s+/);
    if (t[0] === "ipv4" || t[0] === "ipv6") t = t.slice(2);
    const [proto, protonum, timeout, maybeState] = t;
    if (!proto || !/^\d+$/.test(protonum ?? "") || !/^\d+$/.test(timeout ?? "")) continue;
    const src = t.find((x) => x.startsWith("src="))?.slice(4);
    const dst = t.find((x) => x.startsWith("dst="))?.slice(4);
    if (!src || !dst) continue;
    const flow: TrackedFlow = { proto, timeoutS: Number(timeout), src, dst };
    if (proto === "tcp" && maybeState && !maybeState.includes("=")) flow.state = maybeState;
    flows.push(flow);
  }
  return flows;
}

/**
 * The flows tracked in `namespace` now: `conntrack -L` when installed, else /proc/net/nf_conntrack. Read as a
 * stream, line by line: a namespace can hold a hundred thousand flows (tens of MB of text).
 */
export function listTrackedFlows(namespace: string): Promise<TrackedFlow[]> {
  const tool = ["/usr/sbin/conntrack", "/sbin/conntrack"].find((p) => existsSync(p));
  const [cmd, args] = tool
    ? inNamespace(namespace, tool, ["-L"])
    : inNamespace(namespace, "cat", ["/proc/net/nf_conntrack"]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    const flows: TrackedFlow[] = [];
    let rest = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const text = rest + d;
      const cut = text.lastIndexOf("\n");
      rest = text.slice(cut + 1);
      if (cut >= 0) for (const f of parseConntrack(text.slice(0, cut))) flows.push(f);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${cmd} ${args.join(" ")}: exit ${code}: ${stderr.trim()}`));
      else resolve(flows.concat(parseConntrack(rest)));
    });
  });
}

/** Tracked flows between `self` and one peer, both directions, by protocol. */
export interface PeerFlows {
  tcp: number;
  udp: number;
  icmp: number;
  other: number;
  total: number;
  /** tcp flows in conntrack's TIME_WAIT (held 120 s each) */
  tcpTimeWait: number;
}

/** Counts the flows whose other end is one of `peers` (started by either side); other flows are left out. */
export function flowsPerPeer(
  flows: readonly TrackedFlow[],
  peers: readonly string[],
): Map<string, PeerFlows> {
  const out = new Map<string, PeerFlows>();
  for (const p of peers) out.set(p, { tcp: 0, udp: 0, icmp: 0, other: 0, total: 0, tcpTimeWait: 0 });
  for (const f of flows) {
    const c = out.get(f.src) ?? out.get(f.dst);
    if (!c) continue;
    c.total++;
    if (f.proto === "tcp") {
      c.tcp++;
      if (f.state === "TIME_WAIT") c.tcpTimeWait++;
    } else if (f.proto === "udp") c.udp++;
    else if (f.proto === "icmp" || f.proto === "icmpv6") c.icmp++;
    else c.other++;
  }
  return out;
}

/** A tcp socket in TIME_WAIT: its local and remote address:port. */
export interface TimeWaitSocket {
  local: string;
  remote: string;
}

/** The tcp sockets in TIME_WAIT in `namespace` (`ss -tan state time-wait`). */
export async function timeWaitSockets(namespace: string): Promise<TimeWaitSocket[]> {
  const [cmd, args] = inNamespace(namespace, "ss", ["-tanH", "state", "time-wait"]);
  const out: TimeWaitSocket[] = [];
  for (const line of (await run(cmd, args)).stdout.split("\n")) {
    // Recv-Q Send-Q Local Peer (the state column is left out when filtering on one state)
    const t = line.trim().split(/\s+/);
    if (t.length >= 4 && t[2] && t[3]) out.push({ local: t[2], remote: t[3] });
  }
  return out;
}

/** The address part of an `ss` address:port ([v6]:port or v4:port). */
export function ssAddress(endpoint: string): string {
  const i = endpoint.lastIndexOf(":");
  const a = i < 0 ? endpoint : endpoint.slice(0, i);
  const bare = a.startsWith("[") && a.endsWith("]") ? a.slice(1, -1) : a;
  return bare.replace(/^::ffff:(?=\d+\.)/, "");
}
