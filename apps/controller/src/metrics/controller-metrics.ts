import { Counter, Gauge, Registry } from "prom-client";

export interface ControllerMetricsSources {
  registeredAgents: () => number;
  expectedAgents: () => number;
  openWatchStreams: () => number;
  isLeader: () => boolean;
  /** open event-stream subscriptions; default 0 */
  eventSubscribers?: () => number;
}

/**
 * The controller's metric families (reference/metrics.md), in a registry of their own. Gauges read their
 * sources at scrape time; `<prefix>_controller_peer_updates_total` counts PeerList messages sent to agents.
 */
export class ControllerMetrics {
  readonly registry = new Registry();
  readonly peerUpdates: Counter;
  /** `<prefix>_controller_diagnostics_total{type,result}`; results: see DiagnosticsResult */
  readonly diagnostics: Counter<"type" | "result">;

  constructor(prefix: string, sources: ControllerMetricsSources) {
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({
        name: `${prefix}_${name}`,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    };
    gauge("controller_registered_agents", "Agents currently registered.", sources.registeredAgents);
    gauge("controller_expected_agents", "Agents the node inventory expects.", sources.expectedAgents);
    gauge("controller_grpc_connections", "Open WatchPeers streams.", sources.openWatchStreams);
    gauge("controller_leader", "1 while this replica is the leader.", () => (sources.isLeader() ? 1 : 0));
    this.peerUpdates = new Counter({
      name: `${prefix}_controller_peer_updates_total`,
      help: "Peer lists sent to agents.",
      registers: [this.registry],
    });
    this.diagnostics = new Counter({
      name: `${prefix}_controller_diagnostics_total`,
      help: "One-shot diagnostics by type and result (success|fail|error|timeout|cancelled|undelivered).",
      labelNames: ["type", "result"],
      registers: [this.registry],
    });
    const subscribers = sources.eventSubscribers ?? (() => 0);
    gauge("controller_event_subscribers", "Open domain-event stream subscriptions.", subscribers);
  }

  /** Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
