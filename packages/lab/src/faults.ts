import { run, tryRun } from "./exec.ts";
import { type ChainRules, type NodeFault, nodeFaultRules, parseNodeFault } from "./node-faults.ts";
import { randomPercent } from "./path/path-faults.ts";
import { probeMatch } from "./probe-match.ts";

export { probeMatch };

/** A fault between lab nodes, enforced by nftables in the sending node's namespace. */
export type Fault =
  | { kind: "drop"; from: string; to: string; protocol: FaultProtocol }
  | { kind: "loss"; from: string; to: string; protocol: FaultProtocol; percent: number }
  | { kind: "partition"; a: string; b: string }
  /** MTU of the node's eth0: larger frames towards it are dropped silently at the veth, its own egress shrinks */
  | { kind: "mtu"; node: string; bytes: number }
  /** packets TO sends back to FROM larger than `bytes` vanish without ICMP: a PMTU black hole on that path */
  | { kind: "blackhole"; from: string; to: string; bytes: number }
  /** loss on the node's outbound ICMP time-exceeded and echo-reply (what mtr sees of that hop) */
  | { kind: "hoploss"; node: string; percent: number }
  /** node, zone and link faults (node-faults.ts) */
  | NodeFault;

/** MTU of a lab node's eth0 when no mtu fault is in place. */
export const LAB_DEFAULT_MTU = 1500;

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
  /** the node's zone (zone faults) */
  zone?: string;
}

const TABLE = "svc_lab";

/** Table of the flapping links' rules (put in and taken out while the rest stays). */
export const FLAP_TABLE = "svc_lab_flap";

/** The nft rules (namespace -> rule bodies) of a fault's output chain. */
export function faultRules(fault: Fault, nodes: ReadonlyMap<string, FaultEndpoint>): Map<string, string[]> {
  return chainRules(fault, nodes).output;
}

/** The nft rules of a fault, per chain (the node faults use the input chain too). */
export function chainRules(fault: Fault, nodes: ReadonlyMap<string, FaultEndpoint>): ChainRules {
  if (isNodeFault(fault)) return nodeFaultRules(fault, nodes);
  return { output: pairRules(fault, nodes), input: new Map() };
}

const NODE_KINDS = new Set(["isolate", "down", "zones", "block", "flap", "linkloss"]);
const isNodeFault = (f: Fault): f is NodeFault => NODE_KINDS.has(f.kind);

function pairRules(
  fault: Exclude<Fault, NodeFault>,
  nodes: ReadonlyMap<string, FaultEndpoint>,
): Map<string, string[]> {
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
        `${probeMatch(fault.protocol, node(fault.to))} ${randomPercent(fault.percent)}drop`,
      );
      break;
    }
    case "partition":
      add(node(fault.a).namespace, `ip daddr ${node(fault.b).address} drop`);
      add(node(fault.b).namespace, `ip daddr ${node(fault.a).address} drop`);
      break;
    case "mtu":
      node(fault.node); // not an nft rule: applyFault sets the link MTU
      break;
    case "blackhole":
      add(node(fault.to).namespace, `ip daddr ${node(fault.from).address} meta length > ${fault.bytes} drop`);
      break;
    case "hoploss":
      add(
        node(fault.node).namespace,
        `icmp type { time-exceeded, echo-reply } ${randomPercent(fault.percent)}drop`,
      );
      break;
  }
  return out;
}

/**
 * Installs a fault of the network: rules are appended to the `inet svc_lab` table's output and input chains in
 * each namespace (`table`: another table, e.g. a flapping link's); an MTU sets the link MTU, a link down takes
 * the node's eth0 down. A stopped agent and a flapping link need the running lab (Lab.fault).
 */
export async function applyFault(
  fault: Fault,
  nodes: ReadonlyMap<string, FaultEndpoint>,
  table = TABLE,
): Promise<void> {
  const ns = (name: string) => {
    const n = nodes.get(name)?.namespace;
    if (!n) throw new Error(`unknown lab node "${name}" (nodes: ${[...nodes.keys()].join(", ")})`);
    return n;
  };
  if (fault.kind === "mtu") {
    await run("ip", ["-n", ns(fault.node), "link", "set", "eth0", "mtu", String(fault.bytes)]);
    return;
  }
  if (fault.kind === "down") {
    if (fault.what === "agent")
      throw new Error("stopping an agent needs the running lab (svc lab fault down)");
    await run("ip", ["-n", ns(fault.node), "link", "set", "eth0", "down"]);
    return;
  }
  const rules = chainRules(fault, nodes);
  for (const name of new Set([...rules.output.keys(), ...rules.input.keys()])) {
    const script = [
      `table inet ${table} {`,
      "  chain output {",
      "    type filter hook output priority 0; policy accept;",
      "  }",
      "  chain input {",
      "    type filter hook input priority 0; policy accept;",
      "  }",
      "}",
      ...(rules.output.get(name) ?? []).map((r) => `add rule inet ${table} output ${r}`),
      ...(rules.input.get(name) ?? []).map((r) => `add rule inet ${table} input ${r}`),
    ].join("\n");
    await run("ip", ["netns", "exec", name, "nft", "-f", "-"], { input: `${script}\n` });
  }
}

/** Removes one nft table of the lab's (e.g. a flapping link's) from the given namespaces. */
export async function removeTable(namespaces: readonly string[], table: string): Promise<void> {
  for (const ns of namespaces) {
    try {
      await run("ip", ["netns", "exec", ns, "nft", "delete", "table", "inet", table]);
    } catch (err) {
      if (!String(err).includes("No such file")) throw err;
    }
  }
}

/** Removes every fault of the network from the given namespaces (nft rules, eth0 up at the default MTU). */
export async function healAll(namespaces: readonly string[]): Promise<void> {
  for (const ns of namespaces) {
    await tryRun("ip", ["-n", ns, "link", "set", "eth0", "mtu", String(LAB_DEFAULT_MTU), "up"]);
  }
  await removeTable(namespaces, TABLE);
  await removeTable(namespaces, FLAP_TABLE);
}

/**
 * Parses `svc lab fault` words: `drop FROM TO PROTO`, `loss FROM TO PERCENT [PROTO]`, `partition A B`,
 * `mtu NODE BYTES`, `blackhole FROM TO [BYTES]`, `hoploss NODE PERCENT`, and the node faults (node-faults.ts).
 */
export function parseFault(words: readonly string[]): Fault {
  const node = parseNodeFault(words);
  if (node) return node;
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
    case "mtu": {
      const bytes = Number(rest[1]);
      if (rest.length !== 2 || !Number.isInteger(bytes) || bytes < 576 || bytes > 9000) {
        throw new Error("usage: mtu NODE BYTES (576-9000)");
      }
      return { kind, node: rest[0]!, bytes };
    }
    case "blackhole": {
      const bytes = Number(rest[2] ?? 1400);
      if (rest.length < 2 || !Number.isInteger(bytes) || bytes < 576 || bytes > 9000) {
        throw new Error("usage: blackhole FROM TO [BYTES (576-9000, default 1400)]");
      }
      return { kind, from: rest[0]!, to: rest[1]!, bytes };
    }
    case "hoploss": {
      const percent = Number(rest[1]);
      if (rest.length !== 2 || !Number.isFinite(percent) || percent < 0 || percent > 100) {
        throw new Error("usage: hoploss NODE PERCENT (0-100)");
      }
      return { kind, node: rest[0]!, percent };
    }
    default:
      throw new Error(
        `unknown fault "${kind ?? ""}": use drop, loss, partition, mtu, blackhole, hoploss, isolate, down, zones, block, flap or heal`,
      );
  }
}
