import type { TopologyNode } from "@svc/protocol";
import type { AgentRegistry } from "../registry/registry.ts";
import type { NodeSource } from "./node-source.ts";

/**
 * Node inventory for clusters without a Kubernetes API (local lab, bare hosts): the nodes are those of the
 * registered agents, `ready` while their agent is registered, zoned as their agent is (external agents'
 * nodes are in zone `external`). It holds no zone of its own, so zoneOf() is always undefined.
 */
export class RegistrationNodeSource implements NodeSource {
  readonly #registry: AgentRegistry;

  constructor(registry: AgentRegistry) {
    this.#registry = registry;
  }

  list(): TopologyNode[] {
    return this.#registry.list().map((a) => ({ name: a.nodeName, zone: a.zone, ready: true }));
  }

  node(name: string): TopologyNode | undefined {
    const a = this.#registry.agentOnNode(name);
    return a === undefined ? undefined : { name: a.nodeName, zone: a.zone, ready: true };
  }

  zoneOf(): string | undefined {
    return undefined;
  }

  expectedAgents(): number {
    return this.#registry.size;
  }
}
