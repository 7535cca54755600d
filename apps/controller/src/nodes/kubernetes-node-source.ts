import { CoreV1Api, type KubeConfig, type V1Node, Watch } from "@kubernetes/client-node";
import type { TopologyNode } from "@svc/protocol";
import { type Logger, silentLogger } from "../logger.ts";
import type { NodeSource } from "./node-source.ts";

/** The zone label Kubernetes sets on nodes; the default of `failureDomainLabel`. */
export const DEFAULT_FAILURE_DOMAIN_LABEL = "topology.kubernetes.io/zone";

/** Options of {@link KubernetesNodeSource}. */
export interface KubernetesNodeSourceOptions {
  kubeConfig: KubeConfig;
  /** node label holding the zone (config `failureDomainLabel`); default `topology.kubernetes.io/zone` */
  failureDomainLabel?: string;
  /** full relist even while the watch is healthy (the backstop against missed events); default 10 min */
  relistIntervalMs?: number;
  /** first delay after a failed list or watch, doubling up to retryMaxMs; default 1 s */
  retryMinMs?: number;
  /** default 30 s */
  retryMaxMs?: number;
  logger?: Logger;
}

interface WatchedNode {
  metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
  status?: { conditions?: { type?: string; status?: string }[] };
}

interface WatchStatus {
  code?: number;
  message?: string;
}

/**
 * The node inventory from the Kubernetes Node API: list, then watch from the list's resourceVersion, with
 * client-node's CoreV1Api and Watch. A watch that ends is resumed from the last resourceVersion seen; 410 Gone
 * (an ERROR event or an HTTP status) triggers a fresh list; failed requests are retried after a doubling delay;
 * and every `relistIntervalMs` a full relist replaces the state whatever the watch says (spec §8.4 backstop).
 *
 * Each node: `zone` from the label named by `failureDomainLabel` ("" when absent), `ready` when its `Ready`
 * condition is `True`. expectedAgents() counts ready nodes only: the agent DaemonSet also lands on NotReady
 * nodes, but their agents cannot be expected to register or stay registered, so counting them would report a
 * missing agent for every broken node.
 *
 * Until the first list has succeeded the inventory is empty (hasSynced false). start() returns at once; the
 * source keeps retrying in the background while the API is unreachable.
 */
export class KubernetesNodeSource implements NodeSource {
  readonly #core: CoreV1Api;
  readonly #watch: Watch;
  readonly #label: string;
  readonly #relistMs: number;
  readonly #retryMinMs: number;
  readonly #retryMaxMs: number;
  readonly #logger: Logger;
  readonly #nodes = new Map<string, TopologyNode>();
  readonly #listeners = new Set<() => void>();
  #sorted: TopologyNode[] | undefined;
  #resourceVersion = "";
  #generation = 0;
  #running = false;
  #synced = false;
  #retryMs: number;
  #abort: AbortController | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #relistTimer: NodeJS.Timeout | undefined;

  constructor(opts: KubernetesNodeSourceOptions) {
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.#watch = new Watch(opts.kubeConfig);
    this.#label = opts.failureDomainLabel || DEFAULT_FAILURE_DOMAIN_LABEL;
    this.#relistMs = opts.relistIntervalMs ?? 600_000;
    this.#retryMinMs = opts.retryMinMs ?? 1000;
    this.#retryMaxMs = opts.retryMaxMs ?? 30_000;
    this.#retryMs = this.#retryMinMs;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** Begins list+watch and the relist backstop. Returns at once; see hasSynced / onChange. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#relistTimer = setInterval(() => this.#relist("backstop"), this.#relistMs);
    this.#relistTimer.unref();
    this.#cycle();
  }

  /** Ends the watch and all timers; the last inventory stays readable. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#generation++;
    clearInterval(this.#relistTimer);
    clearTimeout(this.#retryTimer);
    this.#abort?.abort();
    this.#abort = undefined;
  }

  /** true once a list has succeeded */
  get hasSynced(): boolean {
    return this.#synced;
  }

  /** Calls `listener` after every change to the inventory (after each relist only if it changed something). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  list(): TopologyNode[] {
    this.#sorted ??= [...this.#nodes.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((n) => ({ ...n }));
    return this.#sorted.map((n) => ({ ...n }));
  }

  node(name: string): TopologyNode | undefined {
    const n = this.#nodes.get(name);
    return n === undefined ? undefined : { ...n };
  }

  zoneOf(nodeName: string): string | undefined {
    const zone = this.#nodes.get(nodeName)?.zone;
    return zone === "" ? undefined : zone;
  }

  expectedAgents(): number {
    let n = 0;
    for (const node of this.#nodes.values()) if (node.ready) n++;
    return n;
  }

  /** Forgets the resourceVersion and starts over with a list (410 Gone, or the backstop). */
  #relist(why: string): void {
    if (!this.#running) return;
    this.#logger.debug({ why }, "relisting nodes");
    this.#resourceVersion = "";
    this.#restart(0);
  }

  /** Abandons the current list/watch (its callbacks become stale) and runs a new cycle after `delayMs`. */
  #restart(delayMs: number): void {
    this.#generation++;
    this.#abort?.abort();
    this.#abort = undefined;
    clearTimeout(this.#retryTimer);
    if (delayMs === 0) this.#cycle();
    else {
      this.#retryTimer = setTimeout(() => this.#cycle(), delayMs);
      this.#retryTimer.unref();
    }
  }

  #retryLater(err: unknown, what: string): void {
    this.#logger.warn({ err: String(err), retryMs: this.#retryMs }, `node ${what} failed`);
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMaxMs, this.#retryMs * 2);
    this.#restart(delay);
  }

  #cycle(): void {
    if (!this.#running) return;
    const gen = ++this.#generation;
    void this.#listAndWatch(gen);
  }

  async #listAndWatch(gen: number): Promise<void> {
    if (this.#resourceVersion === "") {
      let list: Awaited<ReturnType<CoreV1Api["listNode"]>>;
      try {
        list = await this.#core.listNode();
      } catch (err) {
        if (gen === this.#generation) this.#retryLater(err, "list");
        return;
      }
      if (gen !== this.#generation) return;
      this.#replaceAll(list.items);
      this.#resourceVersion = list.metadata?.resourceVersion ?? "";
      this.#synced = true;
    }
    const startedAt = Date.now();
    const done = (err: unknown): void => {
      if (gen !== this.#generation || !this.#running) return;
      if (statusCode(err) === 410) this.#relist("410 Gone");
      else if (err) this.#retryLater(err, "watch");
      // a normal end of stream: resume from the last version; a stream that ends at once is retried later
      else this.#restart(Date.now() - startedAt > 1000 ? 0 : this.#retryMinMs);
    };
    const onEvent = (type: string, obj: unknown): void => {
      if (gen !== this.#generation) return;
      this.#apply(type, obj);
    };
    try {
      const abort = await this.#watch.watch(
        "/api/v1/nodes",
        { resourceVersion: this.#resourceVersion, allowWatchBookmarks: true },
        onEvent,
        done,
      );
      if (gen === this.#generation) this.#abort = abort;
      else abort.abort();
    } catch (err) {
      done(err);
    }
  }

  #apply(type: string, obj: unknown): void {
    if (type === "ERROR") {
      const status = obj as WatchStatus;
      if (status.code === 410) this.#relist("410 Gone");
      else this.#retryLater(status.message ?? JSON.stringify(obj), "watch");
      return;
    }
    const node = obj as WatchedNode;
    const rv = node.metadata?.resourceVersion;
    if (rv) this.#resourceVersion = rv;
    this.#retryMs = this.#retryMinMs;
    const name = node.metadata?.name;
    if (type === "BOOKMARK" || !name) return;
    if (type === "DELETED") {
      if (this.#nodes.delete(name)) this.#changed();
    } else if (type === "ADDED" || type === "MODIFIED") {
      const next = this.#toTopology(node);
      const prev = this.#nodes.get(name);
      if (prev && prev.zone === next.zone && prev.ready === next.ready) return;
      this.#nodes.set(name, next);
      this.#changed();
    }
  }

  #replaceAll(items: V1Node[]): void {
    const next = new Map<string, TopologyNode>();
    for (const item of items) {
      const n = this.#toTopology(item as WatchedNode);
      if (n.name) next.set(n.name, n);
    }
    let same = next.size === this.#nodes.size;
    for (const [name, n] of next) {
      const prev = this.#nodes.get(name);
      if (!prev || prev.zone !== n.zone || prev.ready !== n.ready) same = false;
    }
    this.#retryMs = this.#retryMinMs;
    if (same) return;
    this.#nodes.clear();
    for (const [name, n] of next) this.#nodes.set(name, n);
    this.#changed();
  }

  #toTopology(node: WatchedNode): TopologyNode {
    const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    return { name: node.metadata?.name ?? "", zone: node.metadata?.labels?.[this.#label] ?? "", ready };
  }

  #changed(): void {
    this.#sorted = undefined;
    for (const l of this.#listeners) {
      try {
        l();
      } catch (err) {
        this.#logger.error({ err: String(err) }, "node inventory listener failed");
      }
    }
  }
}

function statusCode(err: unknown): number | undefined {
  const e = err as { statusCode?: unknown; code?: unknown } | null;
  if (typeof e?.statusCode === "number") return e.statusCode;
  return typeof e?.code === "number" ? e.code : undefined;
}
