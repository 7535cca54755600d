/**
 * Faults of a node, a zone or a link, as real clusters see them (issue 34): a node cut off inbound, outbound or
 * both (every protocol); a node down (its agent stopped, or its link down); a partition between two zones; one
 * protocol blocked to or from a node; a flapping link between two nodes; loss on a node's link.
 *
 * They act on the data plane only: the rules match the lab nodes' own addresses, so the control plane (the
 * controller's gRPC and Prometheus's scrapes, which reach a node from the bridge address) keeps working, as it
 * does when a CNI or a NetworkPolicy breaks pod-to-pod traffic. A link down (`down NODE link`) is the exception:
 * it takes everything, control plane included. Cut-offs are stateful (`ct state new`): inbound refuses the flows
 * peers start and lets the answers to the node's own probes in, outbound the reverse, as a host firewall does.
 */

import { randomPercent } from "./path/path-faults.ts";
import { probeMatch } from "./probe-match.ts";

export type Direction = "in" | "out";
export type PlaneProtocol = "tcp" | "udp" | "icmp";

/** The faults of this file. */
export type NodeFault =
  | { kind: "isolate"; node: string; direction: Direction | "both" }
  | { kind: "down"; node: string; what: "agent" | "link" }
  | { kind: "zones"; a: string; b: string }
  | { kind: "block"; node: string; protocol: PlaneProtocol; direction: Direction }
  | { kind: "flap"; a: string; b: string; periodSeconds: number }
  | { kind: "linkloss"; node: string; percent: number };

/** What the rules need of a lab node. */
export interface NodeEndpoint {
  namespace: string;
  address: string;
  tcpPort: number;
  udpPort: number;
  zone?: string;
}

/** nft rule bodies per namespace and chain. */
export interface ChainRules {
  output: Map<string, string[]>;
  input: Map<string, string[]>;
}

const set = (addresses: readonly string[]) => `{ ${addresses.join(", ")} }`;

/** The nft rules of a node fault (none for `down`, which acts on the agent or the link). */
export function nodeFaultRules(fault: NodeFault, nodes: ReadonlyMap<string, NodeEndpoint>): ChainRules {
  const node = (name: string): NodeEndpoint => {
    const n = nodes.get(name);
    if (!n) throw new Error(`unknown lab node "${name}" (nodes: ${[...nodes.keys()].join(", ")})`);
    return n;
  };
  const out: ChainRules = { output: new Map(), input: new Map() };
  const add = (chain: Map<string, string[]>, ns: string, rule: string) =>
    chain.set(ns, [...(chain.get(ns) ?? []), rule]);
  const peersOf = (name: string) => [...nodes].filter(([n]) => n !== name).map(([, e]) => e);
  switch (fault.kind) {
    case "isolate": {
      const x = node(fault.node);
      const peers = set(peersOf(fault.node).map((p) => p.address));
      if (fault.direction !== "out") add(out.input, x.namespace, `ip saddr ${peers} ct state new drop`);
      if (fault.direction !== "in") add(out.output, x.namespace, `ip daddr ${peers} ct state new drop`);
      break;
    }
    case "down":
      node(fault.node);
      break;
    case "zones": {
      if (fault.a === fault.b) throw new Error("zones: two different zones");
      const inZone = (z: string) => [...nodes.values()].filter((n) => n.zone === z);
      const [a, b] = [inZone(fault.a), inZone(fault.b)];
      const zones = [...new Set([...nodes.values()].map((n) => n.zone ?? ""))].join(", ");
      for (const [z, list] of [
        [fault.a, a],
        [fault.b, b],
      ] as const)
        if (list.length === 0) throw new Error(`no lab node in zone "${z}" (zones: ${zones})`);
      for (const n of a) add(out.output, n.namespace, `ip daddr ${set(b.map((x) => x.address))} drop`);
      for (const n of b) add(out.output, n.namespace, `ip daddr ${set(a.map((x) => x.address))} drop`);
      break;
    }
    case "block": {
      const x = node(fault.node);
      const peers = peersOf(fault.node);
      if (fault.direction === "in") {
        const match = probeMatch(fault.protocol, x).replace(/^ip daddr \S+ /, "");
        add(out.input, x.namespace, `ip saddr ${set(peers.map((p) => p.address))} ${match} drop`);
      } else {
        for (const p of peers) add(out.output, x.namespace, `${probeMatch(fault.protocol, p)} drop`);
      }
      break;
    }
    case "flap": {
      const [a, b] = [node(fault.a), node(fault.b)];
      if (fault.a === fault.b) throw new Error("flap: two different nodes");
      add(out.output, a.namespace, `ip daddr ${b.address} drop`);
      add(out.output, b.namespace, `ip daddr ${a.address} drop`);
      break;
    }
    case "linkloss": {
      const x = node(fault.node);
      const peers = set(peersOf(fault.node).map((p) => p.address));
      const p = randomPercent(fault.percent);
      add(out.output, x.namespace, `ip daddr ${peers} ${p}drop`);
      add(out.input, x.namespace, `ip saddr ${peers} ${p}drop`);
      break;
    }
  }
  return out;
}

const num = (s: string | undefined, what: string, min: number, max: number): number => {
  const v = Number(s);
  if (s === undefined || s === "" || !Number.isFinite(v) || v < min || v > max)
    throw new Error(`${what} must be a number ${min}-${max}, got "${s ?? ""}"`);
  return v;
};

/**
 * Parses the words of a node fault, or returns undefined when `words` name another fault: `isolate NODE
 * [in|out|both]`, `down NODE [agent|link]`, `zones ZONE ZONE`, `block NODE tcp|udp|icmp [in|out]`, `flap A B
 * [PERIOD-SECONDS]`, `loss NODE PERCENT` (two words: the node's link; four: `loss FROM TO PERCENT` elsewhere).
 */
export function parseNodeFault(words: readonly string[]): NodeFault | undefined {
  const [kind, ...rest] = words;
  switch (kind) {
    case "isolate": {
      const direction = rest[1] ?? "both";
      if (rest.length < 1 || rest.length > 2 || !["in", "out", "both"].includes(direction))
        throw new Error("usage: isolate NODE [in|out|both]");
      return { kind, node: rest[0] ?? "", direction: direction as Direction | "both" };
    }
    case "down": {
      const what = rest[1] ?? "agent";
      if (rest.length < 1 || rest.length > 2 || (what !== "agent" && what !== "link"))
        throw new Error("usage: down NODE [agent|link]");
      return { kind, node: rest[0] ?? "", what };
    }
    case "zones":
      if (rest.length !== 2) throw new Error("usage: zones ZONE ZONE");
      return { kind, a: rest[0] ?? "", b: rest[1] ?? "" };
    case "block": {
      const [n, protocol, direction = "in"] = rest;
      if (
        rest.length < 2 ||
        rest.length > 3 ||
        !["tcp", "udp", "icmp"].includes(protocol ?? "") ||
        !["in", "out"].includes(direction)
      )
        throw new Error("usage: block NODE tcp|udp|icmp [in|out]");
      return { kind, node: n ?? "", protocol: protocol as PlaneProtocol, direction: direction as Direction };
    }
    case "flap":
      if (rest.length < 2 || rest.length > 3) throw new Error("usage: flap A B [PERIOD-SECONDS, default 20]");
      return {
        kind,
        a: rest[0] ?? "",
        b: rest[1] ?? "",
        periodSeconds: num(rest[2] ?? "20", "flap PERIOD", 2, 3600),
      };
    case "loss":
      if (rest.length !== 2) return undefined;
      return { kind: "linkloss", node: rest[0] ?? "", percent: num(rest[1], "loss PERCENT", 0, 100) };
    default:
      return undefined;
  }
}
