import { EXTERNAL_ZONE, LABEL_EXTERNAL } from "@svc/protocol";
import { ConflictError } from "../errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { RegisteredAgent, Registration } from "./agent.ts";

/** Why the agent set changed. */
export type RegistryChange =
  | { kind: "registered"; agent: RegisteredAgent; replaced: RegisteredAgent[] }
  | { kind: "deregistered"; agent: RegisteredAgent }
  | { kind: "evicted"; agent: RegisteredAgent };

export interface AgentRegistryOptions {
  /** ms without registration or heartbeat after which an agent is evicted (`controller.agentTtl`) */
  ttlMs: number;
  /** zone of a node from the node inventory; undefined when the inventory does not know it */
  inventoryZone?: (nodeName: string) => string | undefined;
  logger?: Logger;
  /** clock, ms since epoch */
  now?: () => number;
}

/** Whether an agent's labels mark it as running outside the cluster. */
export function isExternalAgent(labels: Record<string, string>): boolean {
  return labels[LABEL_EXTERNAL] === "true";
}

/** Options of one registration. */
export interface RegisterOptions {
  /**
   * Whether a live agent holding the node name or id may be replaced from another address (Kubernetes: the holder's
   * address no longer belongs to a pod on that node). Default: never.
   */
  holderIsStale?: (holder: RegisteredAgent) => boolean;
  /** the identity registering (RegisteredAgent.owner); default "" */
  owner?: string;
  /** the registering pod, in Kubernetes mode */
  ownerPod?: { name: string; uid: string };
}

/**
 * The set of registered agents, keyed by agent id, at most one agent per node name. A registration replaces the
 * agent holding its id, and the agent holding its node name when that is the same agent, registered from the
 * same address, or has not been heard from within the TTL (or `holderIsStale` says so); otherwise it is refused
 * (ConflictError), so no other agent takes a live agent's node from elsewhere. Agents not heard from within the TTL are evicted by a timer that runs
 * between start() and stop(). Listeners hear every change synchronously. Every operation but list() is O(1).
 */
export class AgentRegistry {
  readonly #agents = new Map<string, RegisteredAgent>();
  /** node name -> id of the agent holding it */
  readonly #byNode = new Map<string, string>();
  readonly #listeners = new Set<(change: RegistryChange) => void>();
  readonly #inventoryZone: (nodeName: string) => string | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: AgentRegistryOptions) {
    this.#ttlMs = opts.ttlMs;
    this.#inventoryZone = opts.inventoryZone ?? (() => undefined);
    this.#logger = opts.logger ?? silentLogger;
    this.#now = opts.now ?? Date.now;
  }

  /** Starts the eviction timer. */
  start(): void {
    this.#schedule();
  }

  /** Stops the eviction timer; the registry keeps its agents. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The TTL in force, ms. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Changes the TTL live; the sweep cadence follows it. */
  setTtl(ttlMs: number): void {
    if (ttlMs === this.#ttlMs) return;
    this.#ttlMs = ttlMs;
    if (this.#timer !== undefined) this.#schedule();
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Registers (or re-registers) an agent. The id is the requested one, else the node name. The agents holding the
   * same node name or the same id are replaced, unless the node name's holder is another agent (another id),
   * live, registered from another address and not stale (ConflictError naming the holder's address). Zone: `external` for external agents, else the
   * reported zone, else the node inventory's zone, else "" (no inventory outside Kubernetes).
   */
  register(reg: Registration, opts: RegisterOptions = {}): RegisteredAgent {
    const id = reg.agentId !== "" ? reg.agentId : reg.nodeName;
    const replaced: RegisteredAgent[] = [];
    const byName = this.agentOnNode(reg.nodeName);
    if (byName !== undefined) replaced.push(byName);
    const byId = this.#agents.get(id);
    if (byId !== undefined && byId !== byName) replaced.push(byId);
    const now = this.#now();
    for (const holder of replaced) {
      // the same agent (by id) may move; another agent may not take a live one's name from elsewhere
      if (holder.id === id || holder.address === reg.address || now - holder.lastSeen > this.#ttlMs) continue;
      if (opts.holderIsStale?.(holder) === true) continue;
      throw new ConflictError(
        `node name "${reg.nodeName}" is held by a live agent at ${holder.address}; another agent can take it ` +
          `from another address once that one has not been heard from for ${Math.round(this.#ttlMs / 1000)} s ` +
          "(controller.agentTtl)",
      );
    }
    for (const a of replaced) this.#remove(a);
    const agent: RegisteredAgent = {
      id,
      nodeName: reg.nodeName,
      address: reg.address,
      zone: this.#resolveZone(reg),
      zoneFromInventory: !isExternalAgent(reg.labels) && reg.zone === "",
      labels: { ...reg.labels },
      capabilities: [...reg.capabilities],
      httpPort: reg.httpPort,
      udpPort: reg.udpPort,
      metricsPort: reg.metricsPort,
      version: reg.version,
      registeredAt: now,
      lastSeen: now,
      owner: opts.owner ?? "",
      ...(opts.ownerPod ? { ownerPod: { ...opts.ownerPod } } : {}),
    };
    this.#agents.set(id, agent);
    this.#byNode.set(agent.nodeName, id);
    this.#logger.info(
      {
        agentId: id,
        nodeName: agent.nodeName,
        address: agent.address,
        zone: agent.zone,
        replaced: replaced.length,
      },
      "agent registered",
    );
    this.#emit({ kind: "registered", agent, replaced });
    return agent;
  }

  /**
   * Re-reads the inventory zone of agents whose zone came from it (the node list arrived after they registered, or
   * a node's zone label changed). A changed agent is announced as a re-registration of itself.
   */
  refreshZones(): void {
    for (const agent of [...this.#agents.values()]) {
      if (!agent.zoneFromInventory) continue;
      const zone = this.#inventoryZone(agent.nodeName) ?? "";
      if (zone === agent.zone) continue;
      const updated = { ...agent, zone };
      this.#agents.set(agent.id, updated);
      this.#logger.info({ agentId: agent.id, nodeName: agent.nodeName, zone }, "agent zone changed");
      this.#emit({ kind: "registered", agent: updated, replaced: [agent] });
    }
  }

  /** Records a heartbeat; false when the agent is unknown (never registered, evicted or replaced). */
  heartbeat(agentId: string): boolean {
    const agent = this.#agents.get(agentId);
    if (agent === undefined) return false;
    agent.lastSeen = this.#now();
    return true;
  }

  /** Removes an agent; false when it was unknown. */
  deregister(agentId: string): boolean {
    const agent = this.#agents.get(agentId);
    if (agent === undefined) return false;
    this.#remove(agent);
    this.#logger.info({ agentId, nodeName: agent.nodeName }, "agent deregistered");
    this.#emit({ kind: "deregistered", agent });
    return true;
  }

  /** The identity that registered `agentId` (RegisteredAgent.owner); undefined when it is not registered. */
  ownerOf(agentId: string): string | undefined {
    return this.#agents.get(agentId)?.owner;
  }

  /** Whether `agent` has not been heard from within the TTL (an eviction is due). */
  expired(agent: RegisteredAgent): boolean {
    return this.#now() - agent.lastSeen > this.#ttlMs;
  }

  /**
   * Forgets every agent, each announced as deregistered (this replica stopped leading: the new leader rebuilds
   * its registry as the agents register there).
   */
  clear(): void {
    for (const agent of [...this.#agents.values()]) {
      this.#remove(agent);
      this.#emit({ kind: "deregistered", agent });
    }
  }

  /** The agent holding this node name, if any. */
  agentOnNode(nodeName: string): RegisteredAgent | undefined {
    const id = this.#byNode.get(nodeName);
    return id === undefined ? undefined : this.#agents.get(id);
  }

  /** The agent with this id, if registered. */
  get(agentId: string): RegisteredAgent | undefined {
    return this.#agents.get(agentId);
  }

  /** All agents ordered by node name, then id. */
  list(): RegisteredAgent[] {
    return [...this.#agents.values()].sort((a, b) => compare(a.nodeName, b.nodeName) || compare(a.id, b.id));
  }

  /** Number of registered agents. */
  get size(): number {
    return this.#agents.size;
  }

  /** Evicts every agent not heard from within the TTL; returns the evicted agents. */
  evictExpired(): RegisteredAgent[] {
    const deadline = this.#now() - this.#ttlMs;
    const evicted = [...this.#agents.values()].filter((a) => a.lastSeen < deadline);
    for (const agent of evicted) {
      this.#remove(agent);
      this.#logger.warn(
        { agentId: agent.id, nodeName: agent.nodeName, ttlMs: this.#ttlMs },
        "agent evicted: no heartbeat within TTL",
      );
      this.#emit({ kind: "evicted", agent });
    }
    return evicted;
  }

  #remove(agent: RegisteredAgent): void {
    this.#agents.delete(agent.id);
    if (this.#byNode.get(agent.nodeName) === agent.id) this.#byNode.delete(agent.nodeName);
  }

  #resolveZone(reg: Registration): string {
    if (isExternalAgent(reg.labels)) return EXTERNAL_ZONE;
    if (reg.zone !== "") return reg.zone;
    return this.#inventoryZone(reg.nodeName) ?? "";
  }

  #schedule(): void {
    clearInterval(this.#timer);
    // Sweep a few times per TTL so an eviction lands at most a quarter TTL (capped at 1 s) late.
    const every = Math.max(20, Math.min(1000, Math.floor(this.#ttlMs / 4)));
    this.#timer = setInterval(() => this.evictExpired(), every);
    this.#timer.unref();
  }

  #emit(change: RegistryChange): void {
    for (const l of this.#listeners) l(change);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
