/**
 * Ground truth for the engine's tests: a fleet of nodes in zones, a set of injected faults, and the cells the
 * matrix would show for them, by the rules a real lab follows (how the lab's faults act on each probe). The
 * engine never sees the faults; the tests compare its answer with them.
 */
import type { LocalizeNode, Observation, Protocol } from "../types.ts";

export type SimFault =
  /** the node's agent stopped (ping still answers) or the whole node / its link (nothing answers) */
  | { kind: "down"; node: string; host: boolean }
  /** stateful filters: `in` refuses flows peers start, `out` flows the node starts */
  | { kind: "isolate"; node: string; direction: "in" | "out" | "both" }
  | { kind: "zones"; a: string; b: string }
  | { kind: "block"; node: string; protocol: "tcp" | "udp" | "icmp"; direction: "in" | "out" }
  | { kind: "pair"; from: string; to: string; protocols?: Protocol[]; both?: boolean }
  /** random loss on the node's link, both ways */
  | { kind: "loss"; node: string; ratio: number }
  /** the node's link MTU lowered: larger packets towards it vanish, its own cross at `bytes` */
  | { kind: "mtu"; node: string; bytes: number }
  /** only large packets from -> to vanish */
  | { kind: "pmtu-pair"; from: string; to: string };

export interface SimNode {
  name: string;
  zone: string;
}

/** `perZone` nodes in each of `zones` zones: node-1 .. node-N, zone-a, zone-b, ... */
export function simFleet(zones: number, perZone: number): SimNode[] {
  const out: SimNode[] = [];
  for (let i = 0; i < zones * perZone; i++)
    out.push({ name: `node-${i + 1}`, zone: `zone-${String.fromCharCode(97 + (i % zones))}` });
  return out;
}

/** A deterministic pseudo-random stream (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SimOptions {
  now?: number;
  /** planned pairs (default: every ordered pair) */
  planned?: (source: string, destination: string) => boolean;
  /**
   * a node that went down has not been seen to: its last report (from before the fault) is still there, its row
   * healthy (the race between its peers' failures and its own staleness)
   */
  notYetStale?: boolean;
  /** seconds before `now` each node last reported (default 2) */
  reportAge?: number;
  seed?: number;
}

const PLANES = ["tcp", "udp", "icmp"] as const;

/** The nodes and cells the matrix shows for `faults`. */
export function simulate(
  fleet: readonly SimNode[],
  faults: readonly SimFault[],
  opts: SimOptions = {},
): { nodes: LocalizeNode[]; cells: Observation[] } {
  const now = opts.now ?? 1_000_000;
  const rand = prng(opts.seed ?? 1);
  const down = new Map<string, boolean>();
  for (const f of faults) if (f.kind === "down") down.set(f.node, f.host);
  const zone = new Map(fleet.map((n) => [n.name, n.zone]));
  const nodes: LocalizeNode[] = fleet.map((n) => ({
    name: n.name,
    zone: n.zone,
    ...(down.has(n.name) && !opts.notYetStale ? {} : { reportedAt: now - (opts.reportAge ?? 2) }),
  }));
  const cells: Observation[] = [];
  for (const s of fleet)
    for (const d of fleet) {
      if (s.name === d.name || (opts.planned && !opts.planned(s.name, d.name))) continue;
      if (down.has(s.name) && !opts.notYetStale) continue; // a down node reports nothing
      for (const p of PLANES) {
        let state: Observation["state"] = "ok";
        let lossRatio: number | undefined;
        for (const f of faults) {
          const r = reach(f, p, s.name, d.name, zone, opts.notYetStale === true);
          if (r === "fail") state = "fail";
          else if (r === "loss" && state !== "fail") {
            state = "lossy";
            lossRatio = 0.2 + 0.2 * rand();
          }
        }
        const c: Observation = { protocol: p, source: s.name, destination: d.name, state };
        if (p !== "tcp") c.lossRatio = state === "fail" ? 1 : (lossRatio ?? 0);
        cells.push(c);
      }
      // nothing crosses towards a down node at all: no PMTU verdict (the engine sees udp fail instead)
      if (!down.has(d.name)) cells.push(pmtuCell(faults, s.name, d.name));
    }
  return { nodes, cells };
}

function reach(
  f: SimFault,
  p: (typeof PLANES)[number],
  s: string,
  d: string,
  zone: ReadonlyMap<string, string>,
  notYetStale: boolean,
): "fail" | "loss" | undefined {
  switch (f.kind) {
    case "down":
      if (s === f.node) return notYetStale ? undefined : "fail";
      if (d === f.node) return p === "icmp" && !f.host ? undefined : "fail";
      return undefined;
    case "isolate":
      if (f.direction !== "out" && d === f.node) return "fail";
      if (f.direction !== "in" && s === f.node) return "fail";
      return undefined;
    case "zones": {
      const zs = zone.get(s);
      const zd = zone.get(d);
      return (zs === f.a && zd === f.b) || (zs === f.b && zd === f.a) ? "fail" : undefined;
    }
    case "block":
      if (p !== f.protocol) return undefined;
      return (f.direction === "in" ? d : s) === f.node ? "fail" : undefined;
    case "pair": {
      if (f.protocols && !f.protocols.includes(p)) return undefined;
      const fwd = s === f.from && d === f.to;
      const back = f.both === true && s === f.to && d === f.from;
      return fwd || back ? "fail" : undefined;
    }
    case "loss":
      return s === f.node || d === f.node ? "loss" : undefined;
    default:
      return undefined;
  }
}

function pmtuCell(faults: readonly SimFault[], s: string, d: string): Observation {
  const cell: Observation = {
    protocol: "pmtu",
    source: s,
    destination: d,
    state: "ok",
    pmtuBytes: 1500,
    probeBytes: 1500,
  };
  for (const f of faults) {
    if (f.kind === "mtu" && d === f.node) Object.assign(cell, { state: "fail", pmtuBytes: f.bytes });
    else if (f.kind === "mtu" && s === f.node) cell.pmtuBytes = f.bytes;
    if (f.kind === "pmtu-pair" && s === f.from && d === f.to) cell.state = "fail";
  }
  return cell;
}
