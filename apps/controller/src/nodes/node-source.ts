import type { TopologyNode } from "@svc/protocol";

/**
 * The node inventory: which nodes exist, their zone and readiness. In Kubernetes it comes from the Node API;
 * outside it, from agent registrations.
 */
export interface NodeSource {
  /** Nodes ordered by name. */
  list(): TopologyNode[];
  /** One node by name, undefined when the inventory has none of that name. */
  node(name: string): TopologyNode | undefined;
  /** The inventory's zone for a node, undefined when the inventory has none (used for agents reporting none). */
  zoneOf(nodeName: string): string | undefined;
  /** Number of agents the inventory expects (one per ready node). */
  expectedAgents(): number;
  /** Optional: begins watching the inventory (Kubernetes); the owner calls it before serving. */
  start?(): Promise<void>;
  /** Optional: stops watching; the last inventory stays readable. */
  stop?(): Promise<void>;
  /** Optional: calls `listener` after each change of list() / zoneOf(); returns the unsubscribe function. */
  onChange?(listener: () => void): () => void;
}
