/**
 * The fault catalogue of bench/faults and its ground truth: for each type, how to draw one on random elements of a
 * lab, the cells it may turn bad (its true scope: a red cell outside it is a false red), and the suspect the
 * localization must name (its truth: compared by kind, element and mode, not by id text).
 */
import type { Suspect } from "@svc/contract";
import type { Fault } from "@svc/lab";

export type Plane = "tcp" | "udp" | "icmp" | "pmtu";

/** What the bench knows of the lab it draws on. */
export interface LabShape {
  nodes: { name: string; zone: string }[];
}

/** One fault drawn, with its truth. */
export interface DrawnFault {
  type: FaultType;
  fault: Fault;
  /** the `svc lab fault` words */
  words: string;
  /** cells it may turn bad */
  inScope(protocol: Plane, source: string, destination: string): boolean;
  /** whether a suspect is the right answer */
  isTruth(s: Suspect): boolean;
  /** the fault is a node down (its agent or its link): a network suspect would be a confusion, and vice versa */
  nodeDown: boolean;
  /** the node or pair the fault is about, for the confusion check */
  nodes: string[];
  /** partial loss: detection is its first lossy (yellow) cell, not a red one */
  lossy: boolean;
}

export const FAULT_TYPES = [
  "isolate-in",
  "isolate-out",
  "isolate-both",
  "down-agent",
  "down-link",
  "zones",
  "block-in",
  "block-out",
  "flap",
  "node-loss",
  "mtu",
  "drop",
  "partition",
  "blackhole",
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/** Percent of a node's link lost by a node-loss fault. */
export const NODE_LOSS_PERCENT = 30;
/** Period of a flapping link, s (down half of it). */
export const FLAP_PERIOD_S = 20;

const PLANES3 = ["tcp", "udp", "icmp"] as const;

/** Draws one fault of `type` on elements picked by `rand` (0-1). */
export function draw(type: FaultType, lab: LabShape, rand: () => number): DrawnFault {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const names = lab.nodes.map((n) => n.name);
  const x = pick(names);
  const y = pick(names.filter((n) => n !== x));
  const plane = pick(PLANES3);
  const touches = (n: string) => (_p: Plane, s: string, d: string) => s === n || d === n;
  const into = (n: string) => (_p: Plane, _s: string, d: string) => d === n;
  const outOf = (n: string) => (_p: Plane, s: string) => s === n;
  const between = (a: string, b: string) => (_p: Plane, s: string, d: string) =>
    (s === a && d === b) || (s === b && d === a);
  const nodeIs = (kind: Suspect["kind"], node: string, mode: Suspect["mode"]) => (s: Suspect) =>
    s.kind === kind && s.node === node && s.mode === mode;
  const pairBoth = (a: string, b: string) => (s: Suspect) =>
    s.kind === "pair" && s.mode === "both" && new Set([s.source, s.destination, a, b]).size === 2;
  const base = { nodeDown: false, lossy: false };
  switch (type) {
    case "isolate-in":
    case "isolate-out":
    case "isolate-both": {
      const direction = type === "isolate-in" ? "in" : type === "isolate-out" ? "out" : "both";
      const mode = direction === "in" ? "inbound" : direction === "out" ? "outbound" : "both";
      return {
        ...base,
        type,
        fault: { kind: "isolate", node: x, direction },
        words: `isolate ${x} ${direction}`,
        inScope: direction === "in" ? into(x) : direction === "out" ? outOf(x) : touches(x),
        isTruth: nodeIs("node", x, mode),
        nodes: [x],
      };
    }
    case "down-agent":
    case "down-link": {
      const what = type === "down-agent" ? "agent" : "link";
      return {
        type,
        fault: { kind: "down", node: x, what },
        words: `down ${x} ${what}`,
        inScope: touches(x),
        isTruth: nodeIs("node-down", x, what === "agent" ? "down-agent" : "down-host"),
        nodeDown: true,
        lossy: false,
        nodes: [x],
      };
    }
    case "zones": {
      const zones = [...new Set(lab.nodes.map((n) => n.zone))];
      const a = pick(zones);
      const b = pick(zones.filter((z) => z !== a));
      const zoneOf = new Map(lab.nodes.map((n) => [n.name, n.zone]));
      return {
        ...base,
        type,
        fault: { kind: "zones", a, b },
        words: `zones ${a} ${b}`,
        inScope: (_p, s, d) => {
          const zs = zoneOf.get(s);
          const zd = zoneOf.get(d);
          return (zs === a && zd === b) || (zs === b && zd === a);
        },
        isTruth: (s) => s.kind === "zone-pair" && new Set([...(s.zones ?? []), a, b]).size === 2,
        nodes: lab.nodes.filter((n) => n.zone === a || n.zone === b).map((n) => n.name),
      };
    }
    case "block-in":
    case "block-out": {
      const direction = type === "block-in" ? "in" : "out";
      return {
        ...base,
        type,
        fault: { kind: "block", node: x, protocol: plane, direction },
        words: `block ${x} ${plane} ${direction}`,
        // pmtu rides the udp echo: blocking udp leaves pmtu without a verdict, which may read as no data
        inScope: (p, s, d) =>
          (p === plane || (plane === "udp" && p === "pmtu")) && (direction === "in" ? d === x : s === x),
        isTruth: (s) =>
          s.kind === "node-protocol" &&
          s.node === x &&
          s.mode === (direction === "in" ? "inbound" : "outbound") &&
          s.protocols.length === 1 &&
          s.protocols[0] === plane,
        nodes: [x],
      };
    }
    case "flap":
    case "partition":
      return {
        ...base,
        type,
        fault:
          type === "flap"
            ? { kind: "flap", a: x, b: y, periodSeconds: FLAP_PERIOD_S }
            : { kind: "partition", a: x, b: y },
        words: type === "flap" ? `flap ${x} ${y} ${FLAP_PERIOD_S}` : `partition ${x} ${y}`,
        inScope: between(x, y),
        isTruth: pairBoth(x, y),
        nodes: [x, y],
      };
    case "node-loss":
      return {
        ...base,
        lossy: true,
        type,
        fault: { kind: "linkloss", node: x, percent: NODE_LOSS_PERCENT },
        words: `loss ${x} ${NODE_LOSS_PERCENT}`,
        inScope: touches(x),
        isTruth: nodeIs("node", x, "both"),
        nodes: [x],
      };
    case "mtu":
      return {
        ...base,
        type,
        fault: { kind: "mtu", node: x, bytes: 1400 },
        words: `mtu ${x} 1400`,
        inScope: touches(x),
        isTruth: nodeIs("node-mtu", x, "inbound"),
        nodes: [x],
      };
    case "drop":
      return {
        ...base,
        type,
        fault: { kind: "drop", from: x, to: y, protocol: plane },
        words: `drop ${x} ${y} ${plane}`,
        inScope: (p, s, d) => p === plane && s === x && d === y,
        isTruth: (s) =>
          s.kind === "pair" &&
          s.mode === "outbound" &&
          s.source === x &&
          s.destination === y &&
          s.protocols.join() === plane,
        nodes: [x, y],
      };
    case "blackhole":
      return {
        ...base,
        type,
        fault: { kind: "blackhole", from: x, to: y, bytes: 1400 },
        words: `blackhole ${x} ${y} 1400`,
        // y's large packets towards x vanish: x's probes of y lose their large echoes, y's own large probes of x
        // vanish on the way; either direction (or both) may read as the black hole
        inScope: (p, s, d) => p === "pmtu" && ((s === x && d === y) || (s === y && d === x)),
        isTruth: (s) =>
          s.kind === "pair" &&
          s.protocols.join() === "pmtu" &&
          new Set([s.source, s.destination, x, y]).size === 2,
        nodes: [x, y],
      };
  }
}

/** A suspect that contradicts the fault's class: a network fault named for a node down, or the reverse. */
export function confuses(f: DrawnFault, s: Suspect): boolean {
  if (s.role !== "suspect") return false;
  if (f.nodeDown)
    return (
      s.kind !== "node-down" && s.mode !== "unreachable" && s.node !== undefined && f.nodes.includes(s.node)
    );
  return s.kind === "node-down";
}

/**
 * A seeded sequence: every type `perType` times, in a shuffled order, each on elements drawn afresh.
 */
export function sequence(
  lab: LabShape,
  types: readonly FaultType[],
  perType: number,
  rand: () => number,
): DrawnFault[] {
  const order = types.flatMap((t) => Array.from({ length: perType }, () => t));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j] as FaultType, order[i] as FaultType];
  }
  return order.map((t) => draw(t, lab, rand));
}
