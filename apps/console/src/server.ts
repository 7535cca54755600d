/**
 * ConsoleServer: the console's HTTP API on `httpPort` and /metrics, /healthz, /readyz on `metricsPort`, over an
 * optional database (none = in-memory mode: anonymous or header identities only, no history).
 *
 * Lifecycle: start() binds both listeners, then prepares the store in the background (store/prepare.ts),
 * retrying while the database is unreachable; /readyz answers 503 until that finished and the store answers.
 * whenReady() rejects on a fatal store problem (a database migrated by a newer console). stop() closes the
 * listeners, the purge timer, then the database.
 */
import type { Cidr } from "@svc/core";
import Fastify, { type FastifyInstance } from "fastify";
import "./api/context.ts";
import type { Redis } from "ioredis";
import { type AlertPoller, alertPollerFromConfig } from "./alerts/poller.ts";
import { type AlertRules, alertRulesFromConfig } from "./alerts/rules.ts";
import { Annotations } from "./annotations/annotations.ts";
import { buildApiApp } from "./api/api-app.ts";
import { CookiePolicy } from "./api/cookie-policy.ts";
import { addProbeRoutes } from "./api/probes.ts";
import { routeAdder } from "./api/register.ts";
import { AUTH_CACHE_TTL_MS, AuthCache } from "./auth/auth-cache.ts";
import { Authenticator } from "./auth/authenticate.ts";
import { clientAddress, parseCidrs } from "./auth/client-address.ts";
import { Operations } from "./checks/operations.ts";
import type { ConsoleConfig } from "./config/schema.ts";
import { UnavailableError } from "./errors.ts";
import { EventHistory } from "./events/history.ts";
import { FleetService } from "./fleet/fleet-service.ts";
import { Incidents } from "./incidents/incidents.ts";
import { incidentNotifier } from "./incidents/notify.ts";
import { type LiveBus, openLiveBus } from "./live/bus.ts";
import { LiveHub } from "./live/hub.ts";
import { MatrixPusher } from "./live/matrix-pusher.ts";
import { LiveSocketServer } from "./live/socket-server.ts";
import { type ConsoleLogger, silent, urlOf } from "./log.ts";
import { ConsoleMetrics } from "./metrics.ts";
import { AccessLoader } from "./rbac/access-loader.ts";
import type { ConsoleServerOptions } from "./server-options.ts";
import { RedisRevocations } from "./shared/auth-revocations.ts";
import type { Db } from "./store/db.ts";
import { prepareOnce, prepareStore } from "./store/prepare.ts";
import { SqlStore } from "./store/sql-store.ts";
import type { NewAuditRow, Store } from "./store/store.ts";
import { addWebRoutes, findWebRoot } from "./web/static.ts";
import { webhooksFromConfig } from "./webhooks/dispatcher.ts";
import { buildServices, type ConsoleServices } from "./wiring.ts";

export type { ConsoleLogger, ConsoleServerOptions };

const PURGE_EVERY_MS = 60_000;

/** The console server. */
export class ConsoleServer {
  readonly app: FastifyInstance;
  readonly metricsApp: FastifyInstance;
  readonly metrics: ConsoleMetrics;
  private readonly config: ConsoleConfig;
  private readonly db: Db | undefined;
  private readonly store: Store | undefined;
  private readonly services: ConsoleServices;
  private readonly fleet: FleetService;
  private readonly cookies: CookiePolicy;
  private readonly authenticator: Authenticator;
  private readonly log: ConsoleLogger;
  private readonly now: () => number;
  private readonly clientProxies: Cidr[];
  private storeState: "none" | "preparing" | "ready" | "failed";
  private storeReady: Promise<void> = Promise.resolve();
  private purgeTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private readonly accessLoader: AccessLoader;
  /** sessions, users, tokens and access kept for a short while; emptied on every revocation */
  private readonly authCache: AuthCache;
  private revocations: RedisRevocations | undefined;
  /** "METHOD /url" of every route the API listener serves (Fastify path syntax), in registration order */
  readonly apiRoutes: string[] = [];
  /** the live fan-out: the FeedSink of event ingestion, and publish(topic, data) for every replica's sockets */
  readonly live: LiveHub;
  private readonly liveSockets: LiveSocketServer;
  private readonly matrixPusher: MatrixPusher;
  private liveBus: LiveBus | undefined;
  /** event history: controller stream ingestion, stored events and baselines (topologyAt), cluster events */
  readonly history: EventHistory;
  private readonly annotations: Annotations | undefined;
  /** alert rules and their Prometheus rule file (undefined without a database) */
  readonly alertRules: AlertRules | undefined;
  /** reads firing alerts from Prometheus (undefined without prometheus.url) */
  readonly alertPoller: AlertPoller | undefined;
  /** webhook endpoints (with a database), the signed sender, the alert sink */
  private readonly webhooks: ReturnType<typeof webhooksFromConfig>;
  /** targets, check definitions, fan-out, runs (with a database) */
  readonly operations: Operations | undefined;
  /** incidents and their lifecycle webhooks (with a database) */
  private readonly incidents: Incidents | undefined;

  constructor(private readonly opts: ConsoleServerOptions) {
    this.config = opts.config;
    this.db = opts.db;
    this.log = opts.logger ?? silent;
    this.now = opts.now ?? Date.now;
    this.store = opts.db ? new SqlStore(opts.db) : undefined;
    this.storeState = this.store ? "preparing" : "none";
    this.cookies = new CookiePolicy(this.config);
    const cacheClock = opts.authCache?.now ?? (() => performance.now());
    this.authCache = new AuthCache(opts.authCache?.ttlMs ?? AUTH_CACHE_TTL_MS, cacheClock);
    this.accessLoader = new AccessLoader(this.config.auth, this.store, this.authCache);
    const auth = this.config.auth;
    const headerProxies = parseCidrs(auth.header.trustedProxyCIDRs);
    const clientCidrs = parseCidrs(this.config.clientAddress.trustedProxyCIDRs);
    this.clientProxies = clientCidrs.length > 0 ? clientCidrs : headerProxies;
    this.metrics = new ConsoleMetrics(opts.metricsPrefix ?? "svc", {
      storeReady: () => this.storeState === "ready" || this.storeState === "none",
    });
    this.services = buildServices(
      opts,
      this.store,
      this.now,
      this.log,
      (limit) => this.metrics.rateLimited.inc({ limit }),
      this.authCache,
    );
    this.history = new EventHistory({
      config: this.config,
      db: opts.db,
      now: this.now,
      logger: this.log,
      eventDial: opts.events?.dial,
      scheduler: opts.events?.scheduler,
      kubeConfig: opts.events?.kubeConfig,
    });
    this.annotations = opts.db ? new Annotations(opts.db, this.now) : undefined;
    const kube = opts.events?.kubeConfig;
    this.alertRules = opts.db
      ? alertRulesFromConfig(this.config, opts.db, this.now, this.log, kube ? () => kube : undefined)
      : undefined;
    this.webhooks = webhooksFromConfig(this.config, opts.db, this.now, opts.alerts?.scheduler, {
      // unknown until the poller's baseline after a (re)start: a restored hold waits for it
      stillFiring: (t) => {
        const p = this.alertPoller;
        if (!p) return false; // no Prometheus any more: nothing can be said to fire
        return p.hasBaseline() ? p.isFiring(t) : undefined;
      },
      onSuppressed: (event) => this.metrics.webhookSuppressed.inc({ event }),
      onError: (err) => this.log.warn({ err }, "maintenance hold"),
    });
    const endpoints = this.webhooks.endpoints;
    this.incidents = opts.db
      ? new Incidents(
          opts.db,
          this.now,
          endpoints
            ? incidentNotifier({
                endpoints,
                sender: this.webhooks.sender,
                now: this.now,
                onError: (err) => this.log.warn({ err }, "incident webhook"),
              })
            : undefined,
        )
      : undefined;
    const sink = opts.alerts?.sink ?? this.webhooks.sink;
    this.alertPoller = alertPollerFromConfig(this.config, this.log, {
      ...opts.alerts,
      ...(sink ? { sink } : {}),
    });
    this.operations = opts.db
      ? new Operations({
          config: this.config,
          db: opts.db,
          now: this.now,
          log: this.log,
          metrics: this.metrics,
          publish: (topic, data) => this.live.publish(topic, data),
          eventsFed: () => this.history.ingester?.status().connected === true,
        })
      : undefined;
    const pastTopology = (at: number) => this.history.topologyAt(at);
    this.fleet = new FleetService(opts.db ? { ...this.config, pastTopology } : this.config);
    // alert webhooks carry where the fault is (extension key `suspects`), only with a metrics server to read it from
    if (this.config.prometheus.url !== "")
      this.webhooks.dispatcher?.useSuspects(() => this.fleet.localization.current());
    this.authenticator = new Authenticator({
      config: this.config,
      store: this.store,
      sessions: this.services.sessions,
      headerProxies,
      oidc: this.services.refresher,
      now: this.now,
      cache: this.authCache,
    });
    this.live = new LiveHub({ replicaId: opts.live?.replicaId, slowBytes: opts.live?.slowBytes });
    this.history.setSink(this.operations ? this.operations.withMtrHistory(this.live) : this.live);
    this.liveSockets = new LiveSocketServer({
      hub: this.live,
      limits: this.config.websocket,
      authenticate: (req) =>
        this.authenticator.authenticate({ peer: req.socket.remoteAddress ?? "", headers: req.headers }),
      access: (p) => this.accessLoader.load(p),
      clientAddress: (req) =>
        clientAddress(req.socket.remoteAddress ?? "", req.headers["x-forwarded-for"], this.clientProxies),
      onRefused: (limit) => this.metrics.wsRefused.inc({ limit }),
      sessionAlive: this.services.sessions
        ? (idHash) => this.services.sessions?.alive(idHash) ?? Promise.resolve(false)
        : undefined,
      log: this.log,
      now: this.now,
      every: opts.live?.every,
    });
    this.matrixPusher = new MatrixPusher({
      hub: this.live,
      source: this.fleet,
      log: this.log,
      intervalMs: opts.live?.matrixIntervalMs,
      every: opts.live?.every,
    });
    this.app = this.buildApi();
    this.metricsApp = Fastify({ logger: false });
    addProbeRoutes(
      routeAdder(this.metricsApp, () => Promise.reject(new Error("no access on probes"))),
      this.probeDeps(),
    );
  }

  private probeDeps() {
    return { ready: () => this.isReady(), metrics: () => this.metrics.render() };
  }

  private buildApi(): FastifyInstance {
    return buildApiApp({
      authenticator: this.authenticator,
      revoke: () => this.authCache.revoke(),
      cookies: this.cookies,
      clientProxies: this.clientProxies,
      probes: this.probeDeps(),
      access: (req, p) => this.accessLoader.forRequest(req, p),
      log: this.log,
      onRoute: (route) => this.apiRoutes.push(route),
      routes: {
        config: this.config,
        version: this.opts.version ?? "dev",
        store: this.store,
        services: this.services,
        fleet: this.fleet,
        cookies: this.cookies,
        metrics: this.metrics,
        resolveAccess: (req, p) => this.accessLoader.forRequest(req, p),
        audit: (row) => this.audit(row),
        history: this.history,
        annotations: this.annotations,
        operations: this.operations,
        alertRules: this.alertRules,
        webhooks: { endpoints: this.webhooks.endpoints, sender: this.webhooks.sender, now: this.now },
        maintenance: this.webhooks.windows,
        incidents: this.incidents,
        db: this.db,
        now: this.now,
      },
    });
  }

  /** Appends an audit row; UnavailableError (503) when it cannot be written, so the caller does not act. */
  private async audit(row: Omit<NewAuditRow, "at">): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.appendAudit({ ...row, at: this.now() });
    } catch (e) {
      this.log.error({ err: String(e), action: row.action }, "audit row not written");
      throw new UnavailableError("audit log unavailable");
    }
  }

  /** True when the store is migrated and answers within 2 s (always true in in-memory mode). */
  async isReady(): Promise<boolean> {
    if (this.storeState === "none") return true;
    if (this.storeState !== "ready" || !this.store) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.store.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), 2000);
        }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Binds both listeners and starts preparing the store. */
  async start(): Promise<void> {
    const host = this.opts.host ?? "0.0.0.0";
    const webRoot = this.opts.webRoot === false ? undefined : (this.opts.webRoot ?? findWebRoot());
    if (webRoot) await addWebRoutes(this.app, { root: webRoot, authMode: this.config.auth.mode });
    this.liveBus = await openLiveBus({
      redis: this.opts.redis,
      prefix: this.opts.redisPrefix ?? "svc:console:",
      replicaId: this.live.replicaId,
      deliver: (topic, data) => this.live.deliver(topic, data),
      log: this.log,
    });
    this.live.useBus(this.liveBus);
    if (this.opts.redis && this.liveBus.kind === "redis") await this.startRevocations(this.opts.redis);
    this.liveSockets.attach(this.app.server);
    this.matrixPusher.start();
    await this.app.listen({ host, port: this.opts.httpPort ?? this.config.httpPort });
    await this.metricsApp.listen({ host, port: this.opts.metricsPort ?? this.config.metricsPort });
    this.fleet.start();
    this.alertPoller?.start();
    const { db, store } = this;
    if (!db || !store) {
      this.history.start();
      return;
    }
    this.storeReady = prepareStore(
      () => prepareOnce(db, store, this.config, this.now(), this.log),
      () => this.stopping,
      (ms) =>
        new Promise<void>((r) => {
          const timer = setTimeout(r, ms);
          this.wake = () => {
            clearTimeout(timer);
            r();
          };
        }),
      this.log,
    ).then(
      (done) => {
        if (!done) return;
        this.storeState = "ready";
        this.startPurge();
        if (!this.stopping) this.history.start();
        if (!this.stopping) this.operations?.start();
        if (!this.stopping) void this.alertRules?.file.sync(); // the file follows the database after a restart
        if (!this.stopping) void this.webhooks.gate?.restore(); // held alerts outlive a restart
      },
      (e: unknown) => {
        this.storeState = "failed";
        throw e;
      },
    );
    this.storeReady.catch(() => {});
  }

  /** Alert edges held by maintenance windows now (restored ones included). */
  heldAlerts(): number {
    return this.webhooks.gate?.heldCount() ?? 0;
  }

  /** Settles when the TCP matrix computed at start (for the Matrix page's first viewer) is ready or failed. */
  whenFleetWarm(): Promise<void> {
    return this.fleet.warmedUp;
  }

  /** Resolves when the store is ready (at once without one); rejects on a fatal store problem. */
  whenReady(): Promise<void> {
    return this.storeReady;
  }

  private startPurge(): void {
    if (!this.services.sessions) return;
    this.purgeTimer = setInterval(() => {
      this.purgeSessions().catch((e: unknown) => this.log.warn({ err: String(e) }, "session purge failed"));
      this.purgeHistory().catch((e: unknown) => this.log.warn({ err: String(e) }, "history purge failed"));
    }, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  /** Deletes expired sessions now (the timer does this every minute); resolves with the count. */
  async purgeSessions(): Promise<number> {
    const sessions = this.services.sessions;
    if (!sessions) return 0;
    const n = await sessions.purge();
    this.metrics.sessionsPurged.inc(n);
    return n;
  }

  /**
   * Deletes events, cluster events, old topology baselines and schedules' rounds (runs of origin `schedule`) past
   * `database.retentionDays` (0 keeps all) at the server's clock (the timer does this every minute); resolves with
   * the rows deleted.
   */
  async purgeHistory(): Promise<number> {
    const now = this.now();
    const days = this.config.database.retentionDays;
    const runs =
      this.operations && days > 0 ? await this.operations.runs.purgeScheduled(now - days * 86_400_000) : 0;
    return runs + (await this.history.purge(now));
  }

  /** http://host:port of the API listener. */
  get httpUrl(): string {
    return urlOf(this.app);
  }

  /** http://host:port of the metrics listener. */
  get metricsUrl(): string {
    return urlOf(this.metricsApp);
  }

  /** Shares revocations with the other replicas through the shared store (their cache ages out without it). */
  private async startRevocations(redis: Redis): Promise<void> {
    const r = new RedisRevocations(
      redis,
      this.opts.redisPrefix ?? "svc:console:",
      this.live.replicaId,
      this.authCache,
      this.log,
    );
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        r.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("no answer within 5000 ms")), 5000);
        }),
      ]);
      this.revocations = r;
    } catch (e) {
      await r.stop();
      this.log.warn({ err: String(e) }, "revocations not shared: other replicas' caches age out instead");
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops listeners, timers, then closes the database. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    clearInterval(this.purgeTimer);
    this.fleet.stop();
    this.alertPoller?.stop();
    this.webhooks.gate?.stop();
    this.webhooks.sender.stop();
    this.matrixPusher.stop();
    this.liveSockets.close();
    await this.liveBus?.stop();
    await this.revocations?.stop();
    await Promise.allSettled([this.app.close(), this.metricsApp.close()]);
    await this.storeReady.catch(() => {});
    await this.history.stop();
    await this.operations?.stop();
    await this.db?.close();
  }
}
