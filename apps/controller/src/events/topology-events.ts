import type { TopologyNode } from "@svc/protocol";
import type { NodeSource } from "../nodes/node-source.ts";
import type { RegisteredAgent } from "../registry/agent.ts";
import type { AgentRegistry, RegistryChange } from "../registry/registry.ts";
import type { EventPublisher } from "./topics.ts";

/** Agent part of a TopologyChanged payload; `labels` is the agent's registration map verbatim. */
export interface TopologyAgentPayload {
  id: string;
  nodeName: string;
  podIP: string;
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
}

function agentPayload(a: RegisteredAgent): TopologyAgentPayload {
  return {
    id: a.id,
    nodeName: a.nodeName,
    podIP: a.address,
    zone: a.zone,
    labels: { ...a.labels },
    capabilities: [...a.capabilities],
  };
}

/**
 * Publishes TopologyChanged events (topic `topology`). Payload: `change` (`agent-joined`, `agent-updated` (same
 * id registered again), `agent-left`, `node-joined`, `node-left`, `node-readiness`), `reason` for agents
 * (`registered`, `deregistered`, `evicted`, `replaced`), `agent` (TopologyAgentPayload) or `node` (`name`,
 * `zone`, `ready`), and `labels`: the agent's labels (for node changes, those of the agent on that node, {} if
 * none). Agent changes come from the registry's change feed; node changes from diffing, after each registry
 * change, the inventory's entries for the node names that change touched (O(1) per registration, so a fleet
 * registering at once costs linear time), or the whole inventory whenever refreshNodes() is called (node sources
 * with their own feed call it).
 */
export class TopologyEvents {
  readonly #registry: AgentRegistry;
  readonly #nodes: NodeSource;
  readonly #publisher: EventPublisher;
  #known = new Map<string, TopologyNode>();
  #unsubscribe: (() => void) | undefined;

  constructor(registry: AgentRegistry, nodes: NodeSource, publisher: EventPublisher) {
    this.#registry = registry;
    this.#nodes = nodes;
    this.#publisher = publisher;
  }

  /** Starts following the registry (takes the current node list as the baseline). */
  start(): void {
    if (this.#unsubscribe !== undefined) return;
    this.#known = new Map(this.#nodes.list().map((n) => [n.name, n]));
    this.#unsubscribe = this.#registry.onChange((c) => this.#onChange(c));
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Diffs the node inventory against the last view and publishes node joins, leaves and readiness changes. */
  refreshNodes(hint?: RegisteredAgent): void {
    const next = new Map(this.#nodes.list().map((n) => [n.name, n]));
    for (const [name, node] of next) this.#diff(this.#known.get(name), node, hint);
    for (const [name, node] of this.#known) {
      if (!next.has(name)) this.#node("node-left", node, hint);
    }
    this.#known = next;
  }

  /** Diffs the inventory's entries for `names` only (the nodes one registry change can have touched). */
  #refreshNamed(names: Iterable<string>, hint: RegisteredAgent): void {
    for (const name of new Set(names)) {
      const before = this.#known.get(name);
      const now = this.#nodes.node(name);
      if (now === undefined) {
        if (before === undefined) continue;
        this.#known.delete(name);
        this.#node("node-left", before, hint);
      } else {
        this.#known.set(name, now);
        this.#diff(before, now, hint);
      }
    }
  }

  #diff(before: TopologyNode | undefined, node: TopologyNode, hint?: RegisteredAgent): void {
    if (before === undefined) this.#node("node-joined", node, hint);
    else if (before.ready !== node.ready) this.#node("node-readiness", node, hint);
  }

  #onChange(c: RegistryChange): void {
    if (c.kind === "registered") {
      for (const old of c.replaced) {
        if (old.id !== c.agent.id) this.#agent("agent-left", "replaced", old);
      }
      const again = c.replaced.some((old) => old.id === c.agent.id);
      this.#agent(again ? "agent-updated" : "agent-joined", "registered", c.agent);
    } else {
      this.#agent("agent-left", c.kind, c.agent);
    }
    const touched = [c.agent.nodeName];
    if (c.kind === "registered") for (const old of c.replaced) touched.push(old.nodeName);
    this.#refreshNamed(touched, c.agent);
  }

  #agent(change: string, reason: string, a: RegisteredAgent): void {
    const agent = agentPayload(a);
    this.#publisher.publish({
      type: "TopologyChanged",
      severity: change === "agent-left" ? "warn" : "info",
      scope: a.nodeName,
      payload: { change, reason, agent, labels: agent.labels },
    });
  }

  #node(change: string, node: TopologyNode, hint?: RegisteredAgent): void {
    const onNode = this.#registry.agentOnNode(node.name) ?? (hint?.nodeName === node.name ? hint : undefined);
    this.#publisher.publish({
      type: "TopologyChanged",
      severity: change === "node-joined" || node.ready ? "info" : "warn",
      scope: node.name,
      payload: { change, node: { ...node }, labels: onNode ? { ...onNode.labels } : {} },
    });
  }
}
