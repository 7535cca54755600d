/**
 * The console's event history subsystem (issue 19): the controller event-stream ingester, the store of events,
 * baselines and cluster events, the cluster-event watcher, and the retention purge. Built by ConsoleServer from the
 * config; start() after the store is migrated (or at once without a database), stop() before the database closes.
 *
 * - ingestion runs when `controller.grpcAddress` is set (baselines also need `controller.url`);
 * - the cluster-event watcher runs when `kubernetesContext.enabled` (in a pod: the in-cluster API; elsewhere the
 *   default kubeconfig);
 * - purge(now) deletes events, cluster events and old baselines past `database.retentionDays` (0 keeps all).
 */
import { KubeConfig } from "@kubernetes/client-node";
import { EVENT_PAGE_MAX, type EventsQuery, K8S_EVENTS_MAX, type K8sEvent } from "@svc/contract";
import type { EventServiceClient, TopologySnapshot } from "@svc/protocol";
import type { ConsoleConfig } from "../config/schema.ts";
import { InvalidInputError, UnavailableError } from "../errors.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import { type FeedSink, nullFeedSink } from "../live/feed-sink.ts";
import { type ConsoleLogger, silent } from "../log.ts";
import type { Db } from "../store/db.ts";
import { decodeCursor } from "./cursor.ts";
import { type EventPage, EventStore } from "./event-store.ts";
import { EventIngester, eventClient, type Scheduler, wallClock } from "./ingester.ts";
import { K8sEventWatcher } from "./k8s-events.ts";
import { scopeNeedle } from "./scope.ts";
import { topologyAt } from "./topology-at.ts";

const DAY_MS = 86_400_000;
/** The window GET /api/v1/k8s-events covers when `from` is not given: the hour before `to`. */
export const K8S_DEFAULT_WINDOW_MS = 3_600_000;

/** Options of EventHistory (the test hooks default to production behaviour). */
export interface EventHistoryOptions {
  config: ConsoleConfig;
  db?: Db;
  sink?: FeedSink;
  /** epoch ms */
  now: () => number;
  logger?: ConsoleLogger;
  /** TEST: the EventService client factory (default: plain-text gRPC to controller.grpcAddress) */
  eventDial?: () => EventServiceClient;
  /** TEST: the scheduler of reconnects, baselines and relists (default Node timers) */
  scheduler?: Scheduler;
  /** TEST: the Kubernetes API (default in-cluster, else the default kubeconfig) */
  kubeConfig?: KubeConfig;
}

/** In a pod the in-cluster API, elsewhere the default kubeconfig. */
export function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/** Event history, its ingestion, cluster events and retention. */
export class EventHistory {
  readonly store: EventStore | undefined;
  readonly ingester: EventIngester | undefined;
  readonly k8s: K8sEventWatcher | undefined;
  readonly #o: EventHistoryOptions;
  #sink: FeedSink;

  constructor(opts: EventHistoryOptions) {
    this.#o = opts;
    this.#sink = opts.sink ?? nullFeedSink;
    const { config } = opts;
    const log = opts.logger ?? silent;
    this.store = opts.db ? new EventStore(opts.db) : undefined;
    const scheduler = opts.scheduler ?? wallClock;
    if (config.controller.grpcAddress !== "" || opts.eventDial) {
      const controller =
        config.controller.url === ""
          ? undefined
          : new ControllerClient({ url: config.controller.url, timeoutMs: config.controller.timeout });
      this.ingester = new EventIngester({
        dial: opts.eventDial ?? eventClient(config.controller.grpcAddress),
        ...(this.store ? { store: this.store } : {}),
        // through #sink, so setSink() also redirects a running ingester
        sink: {
          event: (e) => this.#sink.event(e),
          fed: (f, at) => this.#sink.fed(f, at),
          missed: (n) => this.#sink.missed(n),
        },
        ...(controller ? { topology: (): Promise<TopologySnapshot> => controller.topology() } : {}),
        clock: scheduler,
        logger: log,
      });
    }
    if (config.kubernetesContext.enabled) {
      this.k8s = new K8sEventWatcher({
        kubeConfig: opts.kubeConfig ?? defaultKubeConfig(),
        ...(this.store ? { store: this.store } : {}),
        clock: scheduler,
        logger: log,
      });
    }
  }

  /** Replaces where ingested events go (the live hub, once built). */
  setSink(sink: FeedSink): void {
    this.#sink = sink;
  }

  /** Starts ingestion and the cluster-event watcher. */
  start(): void {
    this.ingester?.start();
    this.k8s?.start();
  }

  /** Stops both and waits for their pending writes. */
  async stop(): Promise<void> {
    await Promise.all([this.ingester?.stop(), this.k8s?.stop()]);
  }

  #events(): EventStore {
    if (!this.store) throw new UnavailableError("event history needs the database");
    return this.store;
  }

  /** One page of GET /api/v1/events (validated query); 503 without a database, 400 for a bad cursor. */
  list(q: EventsQuery): Promise<EventPage> {
    const store = this.#events();
    const before = q.before === undefined ? undefined : decodeCursor(q.before);
    return store.list({
      ...(q.type ? { type: q.type } : {}),
      ...(q.severity ? { severity: q.severity } : {}),
      ...(q.scope ? { needle: scopeNeedle(q.scope) } : {}),
      ...(q.until ? { until: Date.parse(q.until) } : {}),
      ...(before ? { before } : {}),
      limit: Math.min(q.limit, EVENT_PAGE_MAX),
    });
  }

  /**
   * The topology as of `at` (epoch ms), rebuilt from baselines and TopologyChanged events (the Time Machine's
   * inventory: FleetService `pastTopology`); undefined when nothing was stored by then; 503 without a database.
   */
  topologyAt(at: number): Promise<TopologySnapshot | undefined> {
    return topologyAt(this.#events(), at);
  }

  /** Captured cluster events in the window (validated query), newest first, up to K8S_EVENTS_MAX. */
  async k8sEvents(q: { from?: string; to?: string; node?: string }): Promise<{
    enabled: boolean;
    events: K8sEvent[];
    truncated: boolean;
  }> {
    const to = q.to === undefined ? this.#o.now() : Date.parse(q.to);
    const from = q.from === undefined ? to - K8S_DEFAULT_WINDOW_MS : Date.parse(q.from);
    if (from > to) throw new InvalidInputError("query.from: must not be after to");
    if (!this.k8s) return { enabled: false, events: [], truncated: false };
    const rows = await this.k8s.list({
      from,
      to,
      ...(q.node ? { node: q.node } : {}),
      limit: K8S_EVENTS_MAX + 1,
    });
    return { enabled: true, events: rows.slice(0, K8S_EVENTS_MAX), truncated: rows.length > K8S_EVENTS_MAX };
  }

  /** Deletes history past the retention at `now`; resolves with the rows deleted (0 without a database or retention). */
  async purge(now: number): Promise<number> {
    const days = this.#o.config.database.retentionDays;
    if (!this.store || days === 0) return 0;
    return this.store.purge(now - days * DAY_MS);
  }
}
