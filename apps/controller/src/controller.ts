import type { AddressInfo } from "node:net";
import type { SvcConfig } from "@svc/core";
import type { ControllerVersion } from "@svc/protocol";
import {
  agentServiceDefinition,
  eventServiceDefinition,
  externalCheckServiceDefinition,
  pairStateServiceDefinition,
  taskServiceDefinition,
} from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import {
  createHttpApi,
  createMetricsApi,
  type HttpRoute,
  NOT_LEADER_BODY,
  routesOf,
} from "./api/http-api.ts";
import { topologySnapshot } from "./api/topology.ts";
import { TopologyCache } from "./api/topology-cache.ts";
import { WarmUp } from "./api/warm-up.ts";
import { registerDiagnosticsRoute } from "./diagnostics/route.ts";
import { EventBus } from "./events/event-bus.ts";
import { eventServiceHandlers } from "./events/event-service.ts";
import { TopologyEvents } from "./events/topology-events.ts";
import { ExternalAssignments } from "./external/assignments.ts";
import { externalCheckServiceHandlers } from "./external/external-check-service.ts";
import { registerExternalChecksRoutes } from "./external/external-checks-routes.ts";
import { ExternalGateway } from "./gateway/external-gateway.ts";
import type { GatewayService } from "./gateway/gateway-auth.ts";
import { agentServiceHandlers } from "./grpc/agent-service.ts";
import { GrpcServer } from "./grpc/grpc-server.ts";
import { PeerBroadcaster } from "./grpc/peer-broadcaster.ts";
import { AgentGuard } from "./identity/agent-guard.ts";
import { gatewayIdentity, mainListenerIdentity } from "./identity/authenticate.ts";
import { ownIpv4Prefixes } from "./identity/own-prefixes.ts";
import type { AgentTokenReviewer } from "./identity/token-review.ts";
import { type Logger, silentLogger } from "./logger.ts";
import { ControllerMetrics } from "./metrics/controller-metrics.ts";
import type { NodeSource } from "./nodes/node-source.ts";
import { RegistrationNodeSource } from "./nodes/registration-node-source.ts";
import { registerPairStatesRoute } from "./pair-state/pair-state-route.ts";
import { pairStateServiceHandlers } from "./pair-state/pair-state-service.ts";
import { PairStateStore } from "./pair-state/pair-state-store.ts";
import { PlanState } from "./planner/plan-state.ts";
import { AgentRegistry } from "./registry/registry.ts";
import { DiscoveryList } from "./sd/discovery.ts";
import { registerScrapeSdRoutes } from "./sd/scrape-sd-routes.ts";
import { TaskDispatcher } from "./tasks/task-dispatcher.ts";
import { taskServiceHandlers } from "./tasks/task-service.ts";

export interface ControllerOptions {
  config: SvcConfig;
  logger?: Logger;
  version: { version: string; commit: string };
  /** accept agents advertising a loopback address (local lab without root) */
  allowLoopbackAgents?: boolean;
  /** gRPC bind host; default 0.0.0.0 */
  grpcHost?: string;
  /** HTTP and metrics bind host; default 0.0.0.0 */
  httpHost?: string;
  /** leadership; default: always leader (election not wired yet) */
  isLeader?: () => boolean;
  /** node inventory; default: nodes of the registered agents */
  nodeSource?: (registry: AgentRegistry) => NodeSource;
  /** ms to coalesce registry changes before peer lists go out; default 150 */
  peerDebounceMs?: number;
  /** clock for the warm-up and the pair states' staleness, ms since epoch; default Date.now */
  now?: () => number;
  /**
   * Kubernetes mode: every call on the in-cluster listener carries an agent pod's ServiceAccount token, reviewed
   * here (identity/token-review.ts); without it the connection's source address is the caller's identity
   */
  agentTokens?: AgentTokenReviewer;
  /** IPv4 prefixes whose directed broadcast address agents may not advertise; default this host's interfaces' */
  knownPrefixes?: string[];
  /**
   * the base of the event sequence numbers each time this replica becomes the leader (after standing by); default
   * the time in µs, beyond any number an earlier leader issued
   */
  eventSeqBase?: () => number;
  /** how often leadership is looked at, to end agent streams and forget the registry on losing it; default 500 ms */
  leadershipPollMs?: number;
}

/**
 * The controller: agent registry, agent gRPC service on `grpcPort`, HTTP API on `httpPort`, probes and metrics
 * on `metricsPort`. start() binds HTTP first (so /readyz answers 503 until gRPC is bound), then gRPC; port 0
 * picks a free port, exposed by the port getters. stop() closes gRPC (ending peer streams), then HTTP.
 */
export class Controller {
  readonly registry: AgentRegistry;
  readonly nodes: NodeSource;
  /** one-shot task dispatch over the agents' WatchTasks streams */
  readonly tasks = new TaskDispatcher();
  /** domain events (publish() is a no-op unless `controller.events.enabled`) */
  readonly events: EventBus;
  /** continuous external-check assignments (PUT /api/v1/external-checks), pushed over WatchExternalChecks */
  readonly externalChecks: ExternalAssignments;
  /** the probe plan in force (undefined plan = full mesh) */
  readonly plan: PlanState;
  /** the pairs in trouble now as the agents report them (svc.v1.PairStateService; GET /api/v1/pair-states) */
  readonly pairStates: PairStateStore;
  readonly #gateway: ExternalGateway | undefined;
  readonly #topology: TopologyCache;
  readonly #topologyEvents: TopologyEvents;
  readonly #warmUp: WarmUp;
  /** whether the cached topology body says warmingUp */
  #builtWarm = false;
  readonly #logger: Logger;
  readonly #version: { version: string; commit: string };
  readonly #grpcHost: string;
  readonly #httpHost: string;
  readonly #isLeader: () => boolean;
  readonly #metrics: ControllerMetrics;
  readonly #broadcaster: PeerBroadcaster;
  readonly #grpc: GrpcServer;
  readonly #http: FastifyInstance;
  readonly #metricsHttp: FastifyInstance;
  readonly #eventsEnabled: boolean;
  #config: SvcConfig;
  #httpStarted = false;
  #gatewayPort = 0;
  readonly #guards: AgentGuard[] = [];
  readonly #leadershipPollMs: number;
  #leadershipTimer: NodeJS.Timeout | undefined;
  #wasLeader = false;
  readonly #eventSeqBase: () => number;

  constructor(opts: ControllerOptions) {
    this.#config = opts.config;
    this.#logger = opts.logger ?? silentLogger;
    this.#version = opts.version;
    this.#grpcHost = opts.grpcHost ?? "0.0.0.0";
    this.#httpHost = opts.httpHost ?? "0.0.0.0";
    this.#isLeader = opts.isLeader ?? (() => true);
    this.#eventsEnabled = opts.config.controller.events.enabled;
    let nodes: NodeSource | undefined;
    this.registry = new AgentRegistry({
      ttlMs: opts.config.controller.agentTtl,
      inventoryZone: (name) => nodes?.zoneOf(name),
      logger: this.#logger,
    });
    nodes = (opts.nodeSource ?? ((r) => new RegistrationNodeSource(r)))(this.registry);
    this.nodes = nodes;
    this.events = new EventBus({ enabled: this.#eventsEnabled });
    this.#topologyEvents = new TopologyEvents(this.registry, nodes, this.events);
    // A node source with its own feed (Kubernetes): zones of agents that rely on it, and node events, follow it.
    nodes.onChange?.(() => {
      this.#topology.invalidate();
      this.registry.refreshZones();
      if (this.#eventsEnabled) this.#topologyEvents.refreshNodes();
    });
    this.#metrics = new ControllerMetrics(opts.config.metricsPrefix, {
      registeredAgents: () => this.registry.size,
      expectedAgents: () => this.nodes.expectedAgents(),
      openWatchStreams: () => this.#broadcaster.size,
      isLeader: this.#isLeader,
      eventSubscribers: () => this.events.subscribers,
    });
    this.plan = new PlanState(this.registry, opts.config.topology);
    this.pairStates = new PairStateStore({
      isNode: (node) => this.registry.agentOnNode(node) !== undefined,
      ...(opts.now ? { now: opts.now } : {}),
    });
    this.registry.onChange((change) => {
      if (change.kind !== "registered") this.pairStates.forget(change.agent.id);
      else for (const r of change.replaced) if (r.id !== change.agent.id) this.pairStates.forget(r.id);
    });
    this.#warmUp = new WarmUp({ ttlMs: () => this.registry.ttlMs, now: opts.now });
    this.#topology = new TopologyCache(() => {
      const snap = topologySnapshot(this.registry.list(), this.nodes, new Date(), this.plan.snapshot());
      this.#builtWarm = this.#warming();
      if (this.#builtWarm) snap.warmingUp = true;
      return snap;
    });
    this.registry.onChange(() => this.#topology.invalidate());
    this.#broadcaster = new PeerBroadcaster({
      registry: this.registry,
      debounceMs: opts.peerDebounceMs ?? 150,
      onSent: () => this.#metrics.peerUpdates.inc(),
      planned: (nodeName) => this.plan.plannedFor(nodeName),
    });
    this.externalChecks = new ExternalAssignments({
      isKnown: (id) => this.registry.get(id) !== undefined,
      logger: this.#logger,
    });
    const allowLoopback = opts.allowLoopbackAgents ?? false;
    this.#leadershipPollMs = opts.leadershipPollMs ?? 500;
    this.#eventSeqBase = opts.eventSeqBase ?? (() => Date.now() * 1000);
    // agent calls and the event stream see a leadership change before they are served (not only at the next poll)
    const leading = (): boolean => {
      this.#followLeadership();
      return this.#isLeader();
    };
    const knownPrefixes = opts.knownPrefixes ?? ownIpv4Prefixes();
    const tokens = opts.agentTokens;
    // The agent-facing services, served by the main listener and (TLS + token) by the external gateway, each
    // behind an AgentGuard of its own: leadership, the caller's identity, ownership of agent ids.
    const guarded = (guard: AgentGuard): GatewayService[] =>
      [
        {
          definition: agentServiceDefinition(),
          handlers: agentServiceHandlers({
            registry: this.registry,
            broadcaster: this.#broadcaster,
            allowLoopbackAgents: () => allowLoopback,
            identityOf: (call) => guard.identityOf(call),
            trustedProxyCidrs: () => this.#config.controller.trustedProxyCidrs,
            knownPrefixes,
            ...(tokens ? { podExists: (name: string, uid: string) => tokens.podExists(name, uid) } : {}),
            logger: this.#logger,
          }),
        },
        ...otherServices,
      ].map((s) => guard.wrap(s));
    const guard = (authenticate: ConstructorParameters<typeof AgentGuard>[0]["authenticate"]): AgentGuard => {
      const g = new AgentGuard({
        isLeader: leading,
        authenticate,
        ownerOf: (id) => this.registry.ownerOf(id),
        logger: this.#logger,
      });
      this.#guards.push(g);
      return g;
    };
    this.registry.onChange((change) => {
      if (change.kind !== "registered") return;
      for (const g of this.#guards) g.registered(change.agent.id, change.agent.owner);
    });
    const otherServices: GatewayService[] = [
      {
        definition: taskServiceDefinition(),
        handlers: taskServiceHandlers({ dispatcher: this.tasks, logger: this.#logger }),
      },
      {
        definition: pairStateServiceDefinition(),
        handlers: pairStateServiceHandlers({ registry: this.registry, store: this.pairStates }),
      },
      {
        definition: externalCheckServiceDefinition(),
        handlers: externalCheckServiceHandlers({
          assignments: this.externalChecks,
          isLeader: this.#isLeader,
          logger: this.#logger,
        }),
      },
    ];
    const services = guarded(guard(mainListenerIdentity(tokens)));
    this.#grpc = new GrpcServer();
    for (const svc of services) this.#grpc.addService(svc.definition, svc.handlers);
    this.#grpc.addService(
      eventServiceDefinition(),
      eventServiceHandlers({ bus: this.events, isLeader: leading, logger: this.#logger }),
    );
    this.#gateway = opts.config.controller.externalGateway.enabled
      ? new ExternalGateway({
          config: opts.config.controller.externalGateway,
          services: guarded(
            guard(gatewayIdentity(opts.config.controller.externalGateway.tls.clientCaFile !== "")),
          ),
          agents: this.registry,
          host: this.#grpcHost,
          logger: this.#logger,
        })
      : undefined;
    const ready = (): boolean => this.#grpc.bound;
    this.#http = createHttpApi({
      metrics: this.#metrics,
      ready,
      isLeader: this.#isLeader,
      topologyJson: () => {
        // the warm-up ends with time, not with a change: rebuild when it has
        if (this.#builtWarm && !this.#warming()) this.#topology.invalidate();
        return this.#topology.json();
      },
      version: () => this.versionBody(),
    });
    registerDiagnosticsRoute(this.#http, {
      registry: this.registry,
      dispatcher: this.tasks,
      isLeader: this.#isLeader,
      events: this.events,
      count: (type, result) => this.#metrics.diagnostics.inc({ type, result }),
      notLeaderBody: NOT_LEADER_BODY,
    });
    this.#metricsHttp = createMetricsApi({ metrics: this.#metrics, ready, isLeader: this.#isLeader });
    registerExternalChecksRoutes(this.#http, { assignments: this.externalChecks, isLeader: this.#isLeader });
    registerPairStatesRoute(this.#http, { store: this.pairStates, isLeader: this.#isLeader });
    // one deps object for both ports, so a substituted metricsPort is logged once per agent across both
    const sd = {
      discovery: new DiscoveryList({
        agents: () => this.registry.list(),
        fallbackMetricsPort: opts.config.metricsPort,
        logger: this.#logger,
      }),
      isLeader: this.#isLeader,
      enabled: opts.config.controller.prometheusSD.enabled,
    };
    registerScrapeSdRoutes(this.#http, sd);
    registerScrapeSdRoutes(this.#metricsHttp, sd);
  }

  /** The configuration in force (the last one applied). */
  get config(): SvcConfig {
    return this.#config;
  }

  /** Binds HTTP and metrics, then gRPC, and starts TTL eviction. */
  async start(): Promise<void> {
    await this.startHttp();
    await this.startGrpc();
  }

  /** Binds the HTTP (`httpPort`) and metrics (`metricsPort`) listeners; /readyz answers 503 until startGrpc(). */
  async startHttp(): Promise<void> {
    if (this.#httpStarted) return;
    this.#httpStarted = true;
    await this.#http.listen({ host: this.#httpHost, port: this.#config.httpPort });
    await this.#metricsHttp.listen({ host: this.#httpHost, port: this.#config.metricsPort });
    this.#logger.info(
      { httpPort: this.httpPort, metricsPort: this.metricsPort },
      "controller http listening",
    );
  }

  /** Binds the agent gRPC listener (`grpcPort`) and starts TTL eviction. */
  async startGrpc(): Promise<void> {
    this.registry.start();
    this.#warmUp.begin();
    this.#topology.invalidate();
    if (this.#eventsEnabled) this.#topologyEvents.start();
    this.#wasLeader = this.#isLeader();
    this.#leadershipTimer = setInterval(() => this.#followLeadership(), this.#leadershipPollMs);
    this.#leadershipTimer.unref();
    const port = await this.#grpc.listen(this.#grpcHost, this.#config.grpcPort);
    this.#logger.info({ grpcPort: port }, "controller grpc listening");
    if (this.#gateway) {
      this.#gatewayPort = await this.#gateway.start();
      this.#logger.info(
        { gatewayPort: this.#gatewayPort },
        "external-agent gateway listening (TLS + bearer token)",
      );
    }
  }

  /**
   * On losing leadership: every agent stream ends with UNAVAILABLE `not the leader` (the agents re-dial and reach
   * the leader) and the registry is forgotten, so this replica never serves a stale fleet if it leads again. On
   * gaining it: the warm-up starts over (the registry fills as agents register here).
   */
  #followLeadership(): void {
    if (this.#leadershipTimer === undefined) return; // before startGrpc / after stop
    const leading = this.#isLeader();
    if (leading === this.#wasLeader) return;
    this.#wasLeader = leading;
    if (leading) {
      this.#logger.info({}, "leading: agents register here");
      this.#warmUp.begin();
      this.events.restart(this.#eventSeqBase());
    } else {
      this.#logger.warn({ agents: this.registry.size }, "no longer leading: ending agent streams");
      for (const g of this.#guards) g.endAll();
      this.registry.clear();
      this.pairStates.clear();
    }
    this.#topology.invalidate();
  }

  #warming(): boolean {
    // only an inventory of its own (Kubernetes) can say the fleet is complete
    const expected = this.nodes.onChange === undefined ? undefined : this.nodes.expectedAgents();
    return this.#warmUp.active(this.registry.size, expected);
  }

  /** Stops eviction, ends peer streams, closes gRPC, then the HTTP listeners. Safe to call more than once. */
  async stop(): Promise<void> {
    clearInterval(this.#leadershipTimer);
    this.#leadershipTimer = undefined;
    this.registry.stop();
    await this.#gateway?.stop();
    this.externalChecks.close();
    this.#broadcaster.close();
    this.#topologyEvents.stop();
    this.tasks.close();
    this.events.close();
    await this.#grpc.close();
    if (this.#httpStarted) {
      this.#httpStarted = false;
      await this.#http.close();
      await this.#metricsHttp.close();
    }
  }

  /**
   * Applies a reloaded configuration. Live: `controller.agentTtl`, `topology.*`, `checkers.external.enabled`
   * and `checkers.external.allowedCidrs` (read by the version body). Keys that need a restart (ports,
   * metricsPrefix, ...) keep their running values.
   */
  applyConfig(next: SvcConfig): void {
    const topologyChanged = JSON.stringify(next.topology) !== JSON.stringify(this.#config.topology);
    this.#config = next;
    this.registry.setTtl(next.controller.agentTtl);
    if (topologyChanged) {
      this.plan.setTopology(next.topology);
      this.#topology.invalidate();
      this.#broadcaster.refresh();
    }
  }

  /** The version body (spec §2.4). `events` capability is fixed at startup, as the key needs a restart. */
  versionBody(): ControllerVersion {
    const ext = this.#config.checkers.external;
    return {
      version: this.#version.version,
      commit: this.#version.commit,
      capabilities: this.#eventsEnabled ? ["events"] : [],
      externalAllowedCidrs: ext.enabled ? [...ext.allowedCidrs] : [],
    };
  }

  /** Bound gRPC port (0 before start). */
  get grpcPort(): number {
    return this.#grpc.port;
  }

  /** Bound external-gateway port (0 before start or when the gateway is disabled). */
  get gatewayPort(): number {
    return this.#gatewayPort;
  }

  /** Routes of the HTTP API and of the metrics listener, as registered (complete after start()); read-only. */
  get httpRoutes(): { api: readonly HttpRoute[]; metrics: readonly HttpRoute[] } {
    return { api: routesOf(this.#http), metrics: routesOf(this.#metricsHttp) };
  }

  /** Bound HTTP API port (0 before start). */
  get httpPort(): number {
    return boundPort(this.#http);
  }

  /** Bound metrics port (0 before start). */
  get metricsPort(): number {
    return boundPort(this.#metricsHttp);
  }
}

function boundPort(app: FastifyInstance): number {
  const addr = app.server.address() as AddressInfo | string | null;
  return addr !== null && typeof addr === "object" ? addr.port : 0;
}
