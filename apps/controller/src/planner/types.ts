/** One node the planner places: its name (unique key) and its failure-domain zone. */
export interface PlanNode {
  readonly name: string;
  readonly zone: string;
}

/** The `topology.*` settings the planner reads (spec §8.2); see `planOptionsFromConfig`. */
export interface PlanOptions {
  readonly mode: "full" | "sparse";
  /** every node is probed by at least min(ringDegree, n-1) distinct peers; integer >= 1 */
  readonly ringDegree: number;
  /** every ordered pair of populated zones gets at least min(zoneChords, possible) probes; integer 0-64 */
  readonly zoneChords: number;
  /** sparse mode plans only fleets of at least this many nodes; 0 = always; integer >= 0 */
  readonly autoThreshold: number;
}

/**
 * A sparse probe plan: source node name -> its planned targets, sorted (code-unit order), no self, no duplicates.
 * Every node of the fleet is a key (possibly mapped to []); keys iterate in sorted order. Arrays are frozen.
 */
export type ProbePlan = ReadonlyMap<string, readonly string[]>;
