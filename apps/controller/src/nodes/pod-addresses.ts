import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { UpstreamError } from "../errors.ts";

/** Answers whether an address belongs to an agent pod on a node (Kubernetes mode's registration check). */
export interface PodAddresses {
  /**
   * true when a pod in the agents' namespace runs on `nodeName` with pod IP `address`; `fresh` asks the API even
   * when the pair was confirmed lately; throws UpstreamError when the API cannot answer
   */
  belongs(nodeName: string, address: string, opts?: { fresh?: boolean }): Promise<boolean>;
}

export interface KubernetesPodAddressesOptions {
  kubeConfig: KubeConfig;
  /** the agents' namespace (the controller's own: the chart installs both there) */
  namespace: string;
  /** ms a confirmed (node, address) pair is believed without asking again; default 60 s */
  confirmedForMs?: number;
  /** clock, ms */
  now?: () => number;
}

/**
 * PodAddresses from the Pod API: one list per question, field-selected on `spec.nodeName` and `status.podIP`
 * (a hostNetwork agent's pod IP is its node's address, so it passes too), counting only pods not yet finished.
 * A confirmed pair is remembered for `confirmedForMs` and concurrent questions about one pair share one request,
 * so a fleet re-registering at once costs one request per agent, not one per retry. A refused pair is never
 * remembered: the next registration asks again.
 */
export class KubernetesPodAddresses implements PodAddresses {
  readonly #core: CoreV1Api;
  readonly #namespace: string;
  readonly #confirmedForMs: number;
  readonly #now: () => number;
  readonly #confirmed = new Map<string, number>();
  readonly #asking = new Map<string, Promise<boolean>>();

  constructor(opts: KubernetesPodAddressesOptions) {
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.#namespace = opts.namespace;
    this.#confirmedForMs = opts.confirmedForMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
  }

  belongs(nodeName: string, address: string, opts: { fresh?: boolean } = {}): Promise<boolean> {
    const key = `${nodeName}\u0000${address}`;
    const until = this.#confirmed.get(key);
    if (opts.fresh !== true && until !== undefined && until > this.#now()) return Promise.resolve(true);
    this.#confirmed.delete(key);
    const pending = this.#asking.get(key);
    if (pending !== undefined) return pending;
    const asked = this.#ask(nodeName, address)
      .then((yes) => {
        if (yes) this.#remember(key);
        return yes;
      })
      .finally(() => this.#asking.delete(key));
    this.#asking.set(key, asked);
    return asked;
  }

  async #ask(nodeName: string, address: string): Promise<boolean> {
    let items: { status?: { phase?: string } }[];
    try {
      const list = await this.#core.listNamespacedPod({
        namespace: this.#namespace,
        fieldSelector: `spec.nodeName=${nodeName},status.podIP=${address}`,
      });
      items = list.items;
    } catch (err) {
      const why = err instanceof Error ? err.message.slice(0, 200) : "request failed";
      throw new UpstreamError(`cannot check the agent's pod address with the Kubernetes API: ${why}`);
    }
    return items.some((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
  }

  #remember(key: string): void {
    // bounded: drop expired entries once the map grows past a fleet's worth
    if (this.#confirmed.size >= 50_000) {
      const now = this.#now();
      for (const [k, t] of this.#confirmed) if (t <= now) this.#confirmed.delete(k);
      if (this.#confirmed.size >= 50_000) this.#confirmed.clear();
    }
    this.#confirmed.set(key, this.#now() + this.#confirmedForMs);
  }
}
