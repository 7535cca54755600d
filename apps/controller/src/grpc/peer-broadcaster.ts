import type { PeerList, PeerMessage } from "@svc/protocol";
import type { RegisteredAgent } from "../registry/agent.ts";
import type { AgentRegistry } from "../registry/registry.ts";

/** A WatchPeers stream as the broadcaster sees it. */
export interface PeerSubscriber {
  agentId: string;
  send(list: PeerList): void;
  /** ends the stream (controller shutting down) */
  end(): void;
}

export interface PeerBroadcasterOptions {
  registry: AgentRegistry;
  /** ms to coalesce a burst of registry changes into one update */
  debounceMs?: number;
  /** called once per PeerList sent */
  onSent?: () => void;
  /** node names a node is planned to probe; undefined = full mesh (default: always full mesh) */
  planned?: (nodeName: string) => string[] | undefined;
}

/** The wire form of an agent as a peer: never carries metricsPort. */
export function peerMessage(a: RegisteredAgent): PeerMessage {
  return {
    agent_id: a.id,
    node_name: a.nodeName,
    address: a.address,
    zone: a.zone,
    labels: { ...a.labels },
    capabilities: [...a.capabilities],
    http_port: a.httpPort,
    udp_port: a.udpPort,
  };
}

/**
 * Fans the full peer list out to WatchPeers subscribers: once on subscribe, then after every burst of registry
 * changes (debounced). Each subscriber gets every registered agent except itself, and its own resolved zone
 * ("" while the registry does not know it). Full mesh: `sparse` false, `planned` empty; under a sparse plan
 * `sparse` true and `planned` the node names the subscriber is planned to probe.
 */
export class PeerBroadcaster {
  readonly #registry: AgentRegistry;
  readonly #debounceMs: number;
  readonly #onSent: () => void;
  readonly #planned: (nodeName: string) => string[] | undefined;
  readonly #subscribers = new Set<PeerSubscriber>();
  readonly #unsubscribeRegistry: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: PeerBroadcasterOptions) {
    this.#registry = opts.registry;
    this.#debounceMs = opts.debounceMs ?? 150;
    this.#onSent = opts.onSent ?? (() => {});
    this.#planned = opts.planned ?? (() => undefined);
    this.#unsubscribeRegistry = this.#registry.onChange(() => this.#scheduleFlush());
  }

  /** Number of open subscriptions. */
  get size(): number {
    return this.#subscribers.size;
  }

  /** Adds a subscriber and sends it the current list; returns the unsubscribe function. */
  subscribe(sub: PeerSubscriber): () => void {
    this.#subscribers.add(sub);
    this.#sendTo(sub, this.#registry.list().map(peerMessage));
    return () => this.#subscribers.delete(sub);
  }

  /** Stops listening to the registry, drops pending updates and ends every open stream. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unsubscribeRegistry();
    const subs = [...this.#subscribers];
    this.#subscribers.clear();
    for (const sub of subs) sub.end();
  }

  /** Sends every subscriber a fresh list after the debounce (e.g. the probe plan changed on a config reload). */
  refresh(): void {
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const peers = this.#registry.list().map(peerMessage);
      for (const sub of this.#subscribers) this.#sendTo(sub, peers);
    }, this.#debounceMs);
  }

  #sendTo(sub: PeerSubscriber, all: PeerMessage[]): void {
    const me = this.#registry.get(sub.agentId);
    const planned = me === undefined ? undefined : this.#planned(me.nodeName);
    const list: PeerList = {
      peers: all.filter((p) => p.agent_id !== sub.agentId),
      sparse: planned !== undefined,
      planned: planned ?? [],
      zone: me?.zone ?? "",
    };
    sub.send(list);
    this.#onSent();
  }
}
