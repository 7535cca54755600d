/**
 * The fake API server's core/v1 Events (see FakeKubeApi): `GET /api/v1/events` (all namespaces) and
 * `GET /api/v1/namespaces/{ns}/events`, each a list (`metadata.resourceVersion` the global version) or, with
 * `watch=true`, a watch from `resourceVersion` (absent/empty/0: synthetic ADDED per stored event, then live; older
 * than the compacted history: 410 Gone as an ERROR event) with `timeoutSeconds`. Read only over HTTP; tests write
 * with FakeKubeApi.addEvent / updateEvent / deleteEvent.
 */
import type { ServerResponse } from "node:http";
import { HANDLED, type Handled, json, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus } from "./kube-objects.ts";

/** A v1 Event: an object whose fields (involvedObject, reason, ...) sit at the top level. */
export type EventObject = KubeObject & Record<string, unknown>;

/** Test helper: a v1 Event `reason` about `kind/name` in `namespace`, seen `count` times, last at `last`. */
export function eventObject(
  namespace: string,
  name: string,
  opts: {
    kind?: string;
    object?: string;
    reason?: string;
    message?: string;
    type?: string;
    host?: string;
    count?: number;
    first?: string;
    last?: string;
  } = {},
): EventObject {
  const last = opts.last ?? new Date().toISOString().replace(/\.\d+Z$/, "Z");
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace },
    involvedObject: { kind: opts.kind ?? "Pod", name: opts.object ?? name, namespace },
    reason: opts.reason ?? "Started",
    message: opts.message ?? "Started container",
    type: opts.type ?? "Normal",
    source: opts.host ? { component: "kubelet", host: opts.host } : { component: "kubelet" },
    count: opts.count ?? 1,
    firstTimestamp: opts.first ?? last,
    lastTimestamp: last,
  };
}

interface Change {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: EventObject;
}

interface Watcher {
  res: ServerResponse;
  namespace: string | undefined;
  timer?: NodeJS.Timeout;
}

/** Counts of what clients asked for. */
export interface FakeEventCounters {
  eventLists: number;
  eventWatches: number;
}

export class FakeEvents {
  readonly #events = new Map<string, EventObject>();
  readonly #history: Change[] = [];
  readonly #watches = new Set<Watcher>();
  #compactedRv = 0;

  constructor(
    private readonly deps: {
      counters: FakeEventCounters & { gone: number };
      stamp: (obj: EventObject, old: EventObject | undefined) => EventObject;
      version: () => number;
      bump: () => number;
    },
  ) {}

  add(ev: EventObject): EventObject {
    const key = keyOf(ev);
    if (this.#events.has(key)) throw new Error(`event ${key} exists`);
    const stored = this.deps.stamp(structuredClone(ev), undefined);
    this.#events.set(key, stored);
    this.#emit("ADDED", stored);
    return stored;
  }

  update(namespace: string, name: string, mutate: (e: EventObject) => void): EventObject {
    const key = `${namespace}/${name}`;
    const old = this.#events.get(key);
    if (!old) throw new Error(`no event ${key}`);
    const next = structuredClone(old);
    mutate(next);
    const stored = this.deps.stamp(next, old);
    this.#events.set(key, stored);
    this.#emit("MODIFIED", stored);
    return stored;
  }

  delete(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const old = this.#events.get(key);
    if (!old) throw new Error(`no event ${key}`);
    this.#events.delete(key);
    const gone = structuredClone(old);
    gone.metadata.resourceVersion = String(this.deps.bump());
    this.#emit("DELETED", gone);
  }

  /** Forgets the history (a watch from an older version gets 410 Gone). */
  compact(): void {
    this.#compactedRv = this.deps.version();
    this.#history.length = 0;
  }

  closeWatches(): void {
    for (const w of this.#watches) this.#end(w);
  }

  /** GET of the all-namespaces (`namespace` undefined) or one namespace's events. */
  route(namespace: string | undefined, url: URL, res: ServerResponse): Handled {
    if (url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1")
      return this.#watch(namespace, url, res);
    this.deps.counters.eventLists++;
    const items = [...this.#events.values()]
      .filter((e) => namespace === undefined || e.metadata.namespace === namespace)
      .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    return json(res, 200, {
      kind: "EventList",
      apiVersion: "v1",
      metadata: { resourceVersion: String(this.deps.version()) },
      items,
    });
  }

  #watch(namespace: string | undefined, url: URL, res: ServerResponse): Handled {
    this.deps.counters.eventWatches++;
    const rvParam = url.searchParams.get("resourceVersion") ?? "";
    const from = rvParam === "" || rvParam === "0" ? undefined : Number(rvParam);
    if (from !== undefined && !Number.isInteger(from))
      return sendStatus(res, kubeStatus(400, "BadRequest", `invalid resourceVersion ${rvParam}`));
    if (from !== undefined && from < this.#compactedRv) {
      this.deps.counters.gone++;
      const expired = kubeStatus(410, "Expired", `too old resource version: ${from} (${this.#compactedRv})`);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(`${JSON.stringify({ type: "ERROR", object: expired })}\n`);
      return HANDLED;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    const w: Watcher = { res, namespace };
    this.#watches.add(w);
    res.on("close", () => this.#end(w));
    const timeout = Number(url.searchParams.get("timeoutSeconds") ?? "0");
    if (timeout > 0) w.timer = setTimeout(() => this.#end(w), timeout * 1000);
    if (from === undefined) {
      for (const e of this.#events.values()) this.#send(w, "ADDED", e);
    } else {
      for (const c of this.#history) if (c.rv > from) this.#send(w, c.type, c.object);
    }
    return HANDLED;
  }

  #emit(type: Change["type"], object: EventObject): void {
    this.#history.push({ rv: Number(object.metadata.resourceVersion), type, object });
    for (const w of this.#watches) this.#send(w, type, object);
  }

  #send(w: Watcher, type: string, object: EventObject): void {
    if (w.namespace !== undefined && object.metadata.namespace !== w.namespace) return;
    if (!w.res.writableEnded) w.res.write(`${JSON.stringify({ type, object })}\n`);
  }

  #end(w: Watcher): void {
    if (!this.#watches.delete(w)) return;
    clearTimeout(w.timer);
    w.res.end();
  }
}

function keyOf(e: KubeObject): string {
  return `${e.metadata.namespace ?? "default"}/${e.metadata.name}`;
}
