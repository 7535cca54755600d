import { run } from "./exec.ts";

/** A fault between lab nodes, enforced by nftables in the sending node's namespace. */
export type Fault =
  | { kind: "drop"; from: string; to: string; protocol: FaultProtocol }
  | { kind: "loss"; from: string; to: string; protocol: FaultProtocol; percent: number }
  | { kind: "partition"; a: string; b: string };

export type FaultProtocol = "tcp" | "udp" | "icmp" | "all";
export const FAULT_PROTOCOLS: readonly FaultProtocol[] = ["tcp", "udp", "icmp", "all"];

/** What a rule needs to know about the destination node. */
export interface FaultEndpoint {
  namespace: string;
  address: string;
  /** TCP probe port of the node (its httpPort) */
  tcpPort: number;
  /** UDP echo port of the node (its grpcPort) */
  udpPort: number;
}

const TABLE = "svc_lab";

/**
 * The nft match for probe traffic of one protocol towards `to`. Matching the probe's destination port keeps the
 * fault on the ordered pair: the reverse direction's probes (whose echo replies also travel from -> to) pass.
 */
export function probeMatch(protocol: FaultProtocol, to: FaultEndpoint): string {
  switch (protocol) {
    case "tcp":
      return `ip daddr ${to.address} tcp dport ${to.tcpPort}`;
    case "udp":
      return `ip daddr ${to.address} udp dport ${to.udpPort}`;
    case "icmp":
      return `ip daddr ${to.address} icmp type echo-request`;
    case "all":
      return `ip daddr ${to.address}`;
  }
}

/** The nft rules (namespace -> rule bodies) that implement a fault. */
export function faultRules(fault: Fault, nodes: ReadonlyMap<string, FaultEndpoint>): Map<string, string[]> {
  const node = (name: string): FaultEndpoint => {
    const n = nodes.get(name);
    if (!n) throw new Error(`unknown lab node "${name}" (nodes: ${[...nodes.keys()].join(", ")})`);
    return n;
  };
  const out = new Map<string, string[]>();
  const add = (ns: string, rule: string) => out.set(ns, [...(out.get(ns) ?? []), rule]);
  switch (fault.kind) {
    case "drop":
      add(node(fault.from).namespace, `${probeMatch(fault.protocol, node(fault.to))} drop`);
      break;
    case "loss": {
      if (!Number.isFinite(fault.percent) || fault.percent < 0 || fault.percent > 100) {
        throw new Error(`loss percent must be 0-100, got ${fault.percent}`);
      }
      add(
        node(fault.from).namespace,
        `${probeMatch(fault.protocol, node(fault.to))} numgen random mod 10000 < ${Math.round(fault.percent * 100)} drop`,
      );
      break;
    }
    case "partition":
      add(node(fault.a).namespace, `ip daddr ${node(fault.b).address} drop`);
      add(node(fault.b).namespace, `ip daddr ${node(fault.a).address} drop`);
      break;
  }
  return out;
}

/** Installs a fault; rules are appended to the `inet svc_lab` table's output chain in each namespace. */
export async function applyFault(fault: Fault, nodes: ReadonlyMap<string, FaultEndpoint>): Promise<void> {
  for (const [ns, rules] of faultRules(fault, nodes)) {
    const script = [
      `table inet ${TABLE} {`,
      "  chain output {",
      "    type filter hook output priority 0; policy accept;",
      "  }",
      "}",
      ...rules.map((r) => `add rule inet ${TABLE} output ${r}`),
    ].join("\n");
    await run("ip", ["netns", "exec", ns, "nft", "-f", "-"], { input: `${script}\n` });
  }
}

/** Removes every fault from the given namespaces. */
export async function healAll(namespaces: readonly string[]): Promise<void> {
  for (const ns of namespaces) {
    try {
      await run("ip", ["netns", "exec", ns, "nft", "delete", "table", "inet", TABLE]);
    } catch (err) {
      if (!String(err).includes("No such file")) throw err;
    }
  }
}

/** Parses `svc lab fault` words: `drop FROM TO PROTO`, `loss FROM TO PERCENT [PROTO]`, `partition A B`. */
export function parseFault(words: readonly string[]): Fault {
  const [kind, ...rest] = words;
  const proto = (p: string | undefined): FaultProtocol => {
    const v = (p ?? "all") as FaultProtocol;
    if (!FAULT_PROTOCOLS.includes(v))
      throw new Error(`protocol must be one of ${FAULT_PROTOCOLS.join(", ")}`);
    return v;
  };
  switch (kind) {
    case "drop":
      if (rest.length < 2) throw new Error("usage: drop FROM TO [tcp|udp|icmp|all]");
      return { kind, from: rest[0]!, to: rest[1]!, protocol: proto(rest[2]) };
    case "loss": {
      if (rest.length < 3) throw new Error("usage: loss FROM TO PERCENT [tcp|udp|icmp|all]");
      const percent = Number(rest[2]);
      if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
        throw new Error(`loss PERCENT must be a number 0-100, got "${rest[2]}"`);
      }
      return { kind, from: rest[0]!, to: rest[1]!, percent, protocol: proto(rest[3]) };
    }
    case "partition":
      if (rest.length !== 2) throw new Error("usage: partition A B");
      return { kind, a: rest[0]!, b: rest[1]! };
    default:
      throw new Error(`unknown fault "${kind ?? ""}": use drop, loss, partition or heal`);
  }
}
