/** HTTP bodies of the controller (spec §2.1–2.4). */
export interface TopologyNode {
  name: string;
  zone: string;
  ready: boolean;
}
export interface TopologyAgent {
  id: string;
  nodeName: string;
  podIP: string;
  zone: string;
  labels?: Record<string, string>;
  capabilities: string[];
  httpPort?: number;
  udpPort?: number;
  metricsPort?: number;
}
export interface TopologySnapshot {
  nodes: TopologyNode[];
  agents: TopologyAgent[];
  probePlan?: Record<string, string[]>;
  timestamp: string;
  /**
   * present (true) while the controller is warming up: within one agentTtl of its start, before agents that were
   * registered with the previous process are back (docs/decisions.md); absent otherwise
   */
  warmingUp?: boolean;
}
export interface ControllerVersion {
  version: string;
  commit: string;
  capabilities: string[];
  externalAllowedCidrs: string[];
}
export interface AgentVersion {
  version: string;
  commit: string;
}
