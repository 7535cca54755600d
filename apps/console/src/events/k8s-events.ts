/**
 * Cluster events (console.kubernetesContext.enabled, spec §8.4): Kubernetes Events (core/v1, all namespaces) by
 * list, then watch from the list's resourceVersion, with @kubernetes/client-node. A watch that ends is resumed from
 * the last resourceVersion seen; 410 Gone relists; failures are retried after a doubling delay (1 s to 30 s); and
 * every `relistIntervalMs` (10 min) a full relist runs whatever the watch says (the spec's backstop against missed
 * events). Timers run on the injectable Scheduler (virtual time in tests).
 *
 * Captured events are kept in the database when the console has one (upserted by uid; the retention purge ends
 * them), else in a bounded in-memory ring of the `ringSize` (5000) most recently seen. Events the API server deletes
 * (its own TTL, one hour by default) stay captured.
 */
import { CoreV1Api, type KubeConfig, Watch } from "@kubernetes/client-node";
import type { K8sEvent } from "@svc/contract";
import { type ConsoleLogger, silent } from "../log.ts";
import type { EventStore } from "./event-store.ts";
import { type Scheduler, wallClock } from "./ingester.ts";
import { storable } from "./storable.ts";

export const K8S_RELIST_MS = 600_000;
export const K8S_RING_SIZE = 5000;
const TEXT_MAX = 4096;

/** Options of K8sEventWatcher. */
export interface K8sEventWatcherOptions {
  kubeConfig: KubeConfig;
  /** the console database; undefined: the in-memory ring */
  store?: EventStore;
  clock?: Scheduler;
  relistIntervalMs?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  ringSize?: number;
  logger?: ConsoleLogger;
}

/** A window query of captured events. */
export interface K8sQuery {
  from: number;
  to: number;
  node?: string;
  limit: number;
}

function rec(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
}

function get(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function text(v: unknown, max = TEXT_MAX): string {
  if (typeof v !== "string") return "";
  return storable(v.slice(0, max));
}

/** Epoch ms of a Kubernetes time (a Date from typed lists, an RFC 3339 string from watches), or undefined. */
function timeOf(v: unknown): number | undefined {
  const t = v instanceof Date ? v.getTime() : typeof v === "string" ? Date.parse(v) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** A core/v1 Event as the API shows it, or undefined when it lacks a uid. */
export function toK8sEvent(obj: unknown, fallbackNow: number): K8sEvent | undefined {
  const o = rec(obj);
  const meta = rec(get(o, "metadata"));
  const uid = text(get(meta, "uid"), 128);
  if (uid === "") return undefined;
  const involved = rec(get(o, "involvedObject"));
  const series = rec(get(o, "series"));
  const source = rec(get(o, "source"));
  const created = timeOf(get(meta, "creationTimestamp"));
  const at =
    timeOf(get(series, "lastObservedTime")) ??
    timeOf(get(o, "lastTimestamp")) ??
    timeOf(get(o, "eventTime")) ??
    created ??
    fallbackNow;
  const firstAt = timeOf(get(o, "firstTimestamp")) ?? timeOf(get(o, "eventTime")) ?? created ?? at;
  const kind = text(get(involved, "kind"), 128);
  const name = text(get(involved, "name"), 253);
  const host = text(get(source, "host"), 253);
  const count = Number(get(series, "count") ?? get(o, "count") ?? 1);
  return {
    id: uid,
    at: new Date(at).toISOString(),
    firstAt: new Date(Math.min(firstAt, at)).toISOString(),
    type: text(get(o, "type"), 64),
    reason: text(get(o, "reason"), 256),
    message: text(get(o, "message")),
    namespace: text(get(meta, "namespace") ?? get(involved, "namespace"), 253),
    object: `${kind}/${name}`,
    node: kind === "Node" && name !== "" ? name : host === "" ? null : host,
    count: Number.isSafeInteger(count) && count > 0 ? count : 1,
  };
}

function statusCode(err: unknown): number | undefined {
  const e = rec(err);
  const code = get(e, "code") ?? get(e, "statusCode");
  if (typeof code === "number") return code;
  const body = get(e, "body");
  const parsed = typeof body === "string" ? safeJson(body) : body;
  const c = get(rec(parsed), "code");
  return typeof c === "number" ? c : undefined;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Counts, for tests and logs. */
export interface K8sWatcherStatus {
  lists: number;
  watches: number;
  captured: number;
  synced: boolean;
  /** a watch stream is open */
  watching: boolean;
}

/** Watches the cluster's Events and keeps what it saw. */
export class K8sEventWatcher {
  readonly #o: K8sEventWatcherOptions;
  readonly #core: CoreV1Api;
  readonly #watch: Watch;
  readonly #clock: Scheduler;
  readonly #log: ConsoleLogger;
  readonly #ring = new Map<string, K8sEvent>();
  readonly #ringSize: number;
  #rv = "";
  #gen = 0;
  #running = false;
  #retryMs: number;
  #abort: AbortController | undefined;
  #retryTimer: { cancel(): void } | undefined;
  #relistTimer: { cancel(): void } | undefined;
  #writes: Promise<void> = Promise.resolve();
  readonly #status: K8sWatcherStatus = {
    lists: 0,
    watches: 0,
    captured: 0,
    synced: false,
    watching: false,
  };

  constructor(opts: K8sEventWatcherOptions) {
    this.#o = opts;
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.#watch = new Watch(opts.kubeConfig);
    this.#clock = opts.clock ?? wallClock;
    this.#log = opts.logger ?? silent;
    this.#ringSize = Math.max(1, opts.ringSize ?? K8S_RING_SIZE);
    this.#retryMs = opts.retryMinMs ?? 1000;
  }

  /** Begins list+watch and the relist backstop; returns at once. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#armRelist();
    this.#cycle();
  }

  /** Ends the watch and the timers, then waits for pending writes. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#gen++;
    this.#relistTimer?.cancel();
    this.#retryTimer?.cancel();
    this.#abort?.abort();
    this.#abort = undefined;
    await this.#writes;
  }

  status(): K8sWatcherStatus {
    return { ...this.#status };
  }

  /** Resolves when every captured event so far is stored. */
  drained(): Promise<void> {
    return this.#writes;
  }

  /** Captured events last seen within the window, newest first, at most `limit` (the caller asks one more). */
  async list(q: K8sQuery): Promise<K8sEvent[]> {
    if (this.#o.store) return this.#o.store.listK8s(q.from, q.to, q.node, q.limit);
    return [...this.#ring.values()]
      .filter((e) => {
        const t = Date.parse(e.at);
        return t >= q.from && t <= q.to && (q.node === undefined || e.node === q.node);
      })
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? 1 : -1))
      .slice(0, q.limit);
  }

  #armRelist(): void {
    const every = this.#o.relistIntervalMs ?? K8S_RELIST_MS;
    this.#relistTimer = this.#clock.schedule(this.#clock.now() + every, () => {
      if (!this.#running) return;
      this.#log.debug({}, "relisting cluster events (backstop)");
      this.#rv = "";
      this.#restart(0);
      this.#armRelist();
    });
  }

  #restart(delayMs: number): void {
    this.#gen++;
    this.#status.watching = false;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#retryTimer?.cancel();
    this.#retryTimer = undefined;
    if (delayMs === 0) this.#cycle();
    else this.#retryTimer = this.#clock.schedule(this.#clock.now() + delayMs, () => this.#cycle());
  }

  #retryLater(err: unknown, what: string): void {
    const delay = this.#retryMs;
    this.#log.warn({ err: String(err), retryMs: delay }, `cluster event ${what} failed`);
    this.#retryMs = Math.min(this.#o.retryMaxMs ?? 30_000, this.#retryMs * 2);
    this.#restart(delay);
  }

  #cycle(): void {
    if (!this.#running) return;
    const gen = ++this.#gen;
    void this.#listAndWatch(gen);
  }

  #keep(obj: unknown): void {
    const e = toK8sEvent(obj, this.#clock.now());
    if (!e) return;
    this.#status.captured++;
    const store = this.#o.store;
    if (store) {
      this.#writes = this.#writes.then(() =>
        store.upsertK8s(e).catch((err: unknown) => {
          this.#log.warn({ err: String(err) }, "cluster event not stored");
        }),
      );
      return;
    }
    this.#ring.delete(e.id);
    this.#ring.set(e.id, e);
    if (this.#ring.size > this.#ringSize) {
      const oldest = this.#ring.keys().next().value;
      if (oldest !== undefined) this.#ring.delete(oldest);
    }
  }

  async #listAndWatch(gen: number): Promise<void> {
    if (this.#rv === "") {
      let list: Awaited<ReturnType<CoreV1Api["listEventForAllNamespaces"]>>;
      try {
        this.#status.lists++;
        list = await this.#core.listEventForAllNamespaces();
      } catch (err) {
        if (gen === this.#gen && this.#running) this.#retryLater(err, "list");
        return;
      }
      if (gen !== this.#gen || !this.#running) return;
      for (const item of list.items) this.#keep(item);
      this.#rv = list.metadata?.resourceVersion ?? "";
      this.#status.synced = true;
      this.#retryMs = this.#o.retryMinMs ?? 1000;
    }
    const startedAt = this.#clock.now();
    const done = (err: unknown): void => {
      if (gen !== this.#gen || !this.#running) return;
      this.#status.watching = false;
      if (statusCode(err) === 410) {
        this.#rv = "";
        this.#restart(0);
      } else if (err) this.#retryLater(err, "watch");
      // a normal end of stream: resume from the last version; one that ended at once is retried later
      else this.#restart(this.#clock.now() - startedAt > 1000 ? 0 : (this.#o.retryMinMs ?? 1000));
    };
    const onEvent = (type: string, obj: unknown): void => {
      if (gen !== this.#gen) return;
      if (type === "ERROR") {
        if (get(rec(obj), "code") === 410) {
          this.#rv = "";
          this.#restart(0);
        }
        return;
      }
      const rv = get(rec(get(rec(obj), "metadata")), "resourceVersion");
      if (typeof rv === "string" && rv !== "") this.#rv = rv;
      if (type === "ADDED" || type === "MODIFIED") this.#keep(obj);
    };
    try {
      this.#status.watches++;
      const abort = await this.#watch.watch(
        "/api/v1/events",
        { resourceVersion: this.#rv, allowWatchBookmarks: true },
        onEvent,
        done,
      );
      if (gen === this.#gen && this.#running) {
        this.#abort = abort;
        this.#status.watching = true;
      } else abort.abort();
    } catch (err) {
      if (gen === this.#gen && this.#running) this.#retryLater(err, "watch");
    }
  }
}
