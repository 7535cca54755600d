/**
 * The engine's words: what goes in (nodes and the current state of every planned, measured pair per protocol)
 * and what comes out (suspects with their evidence). Plain data, no classes, so the console, the bench and the
 * tests build and read them alike.
 */

/** The protocols the matrix measures; pmtu is judged on its own (a black hole is its failure). */
export const PROTOCOLS = ["tcp", "udp", "icmp", "pmtu"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** The three reachability planes (pmtu is not one: a node can be reachable and still swallow large packets). */
export const REACH: readonly Protocol[] = ["tcp", "udp", "icmp"];

/**
 * The state of one ordered pair on one protocol now: `ok`; `fail` (the latest results all failed, or half the
 * packets are lost; for pmtu a black hole); `lossy` (some of the latest packets or probes were lost). A pair not
 * measured (no data, not run, unplanned) is simply not observed.
 */
export type CellState = "ok" | "fail" | "lossy";

/** A node of the fleet as the engine sees it. */
export interface LocalizeNode {
  name: string;
  zone: string;
  /**
   * When the node's own measurements were last reported (epoch seconds, the metrics store's sample time);
   * undefined when it reports nothing now (its agent's series are gone: agent stopped, node or link down).
   */
  reportedAt?: number;
}

/** One observed cell. */
export interface Observation {
  protocol: Protocol;
  source: string;
  destination: string;
  state: CellState;
  /** udp/icmp: share of the latest packets lost */
  lossRatio?: number;
  /** pmtu: the size that crossed, and the size probed */
  pmtuBytes?: number;
  probeBytes?: number;
}

/** Kinds of suspect, from the most to the least specific element. */
export type SuspectKind =
  /** a node that reports nothing and that its peers cannot reach */
  | "node-down"
  /** a node cut off from its peers (inbound, outbound or both), on every reachability plane */
  | "node"
  /** one protocol blocked to or from a node */
  | "node-protocol"
  /** large packets vanish to or from a node (its link's MTU) */
  | "node-mtu"
  /** a zone cut off from every other zone */
  | "zone"
  /** every pair between two zones */
  | "zone-pair"
  /** one pair's path (one way or both ways), one or more protocols */
  | "pair"
  /** one protocol failing fleet-wide */
  | "protocol";

/**
 * What a suspect does: `down-agent` (the host answers ping, its agent does not), `down-host` (nothing answers:
 * the node or its link is down), `unreachable` (peers cannot reach it and it has not reported since: down or cut
 * off, not known yet), `inbound`, `outbound`, `both` (directions of a network fault), `partitioned`.
 */
export type SuspectMode =
  | "down-agent"
  | "down-host"
  | "unreachable"
  | "inbound"
  | "outbound"
  | "both"
  | "partitioned";

/** A block of the matrix a suspect explains: `null` = every node. Both lists name nodes. */
export interface ScopeBlock {
  sources: string[] | null;
  destinations: string[] | null;
}

/** One suspect. */
export interface Suspect {
  /** stable while the same element is suspected (e.g. `node:node-7:inbound`) */
  id: string;
  kind: SuspectKind;
  mode: SuspectMode;
  /** `fail`: the pairs it explains fail outright; `loss`: they lose part of their packets */
  effect: "fail" | "loss";
  /** the element: a node, two zones, one zone, a pair, or nothing (fleet-wide protocol) */
  node?: string;
  zones?: string[];
  source?: string;
  destination?: string;
  /** the protocols it explains failing */
  protocols: Protocol[];
  /** 0-1: share of its predicted pairs that fail x share of those it is the explanation of */
  confidence: number;
  /** failing cells it explains */
  explains: number;
  /** human sentences, the first one the headline */
  evidence: string[];
  /** where it shows on the matrix (rows, columns, blocks), for the protocols above */
  scope: ScopeBlock[];
  /** `suspect`: part of the smallest explanation; `alternative`: also fits, less well */
  role: "suspect" | "alternative";
  /** epoch seconds this suspect was first seen (carried by the memory) */
  since?: number;
}

/** What the engine remembers between two answers (pass the previous answer's memory to the next call). */
export interface LocalizeMemory {
  /** node -> epoch seconds its column was first seen failing, -Infinity once it is known up since (kept while any
   * cell of the column fails) */
  unconfirmedSince: ReadonlyMap<string, number>;
  /** suspect id -> epoch seconds first seen */
  firstSeen: ReadonlyMap<string, number>;
}

/** The engine's answer. */
export interface LocalizeResult {
  /** suspects (the explanation, most failing cells first), then alternatives */
  suspects: Suspect[];
  /** failing (or lossy) cells observed, and how many the suspects explain */
  failingCells: number;
  explainedCells: number;
  observedCells: number;
  memory: LocalizeMemory;
}
