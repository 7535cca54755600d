/**
 * FleetService: joins the controller's topology with Prometheus figures into the fleet API's bodies. Stateless
 * between calls (each answer reads both sources afresh). Prometheus-backed answers throw
 * MetricsUnconfiguredError (503) when `prometheus.url` is empty, before anything else is read; the topology then
 * answers from the controller alone, its links `nodata` and marked `figuresAbsent`.
 */
import type {
  FleetCheckRequest,
  FleetMatrix,
  FleetNode,
  FleetOverview,
  FleetPair,
  FleetProtocol,
  FleetTopology,
  PairWindow,
} from "@svc/contract";
import { InvalidInputError } from "../errors.ts";
import { ControllerClient, type DiagnosticsAnswer } from "./controller-client.ts";
import { fleetFigures, scopedFigures } from "./figures.ts";
import { MetricsUnconfiguredError, UnknownNodeError } from "./fleet-errors.ts";
import { expectedPairs, type FleetView, fleetView } from "./fleet-view.ts";
import { buildMatrix } from "./matrix.ts";
import { buildNode } from "./node-view.ts";
import { buildOverview, buildTopology, topologyWithoutFigures } from "./overview.ts";
import { buildPair, PAIR_WINDOWS } from "./pair-view.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { eq } from "./promql.ts";
import { SnapshotCache } from "./snapshot-cache.ts";

/** Matrix snapshots younger than this are served without asking Prometheus. */
export const MATRIX_FRESH_MS = 2000;
/** Matrix snapshots younger than this are served at once while a refresh runs. */
export const MATRIX_STALE_MS = 60_000;
/** Matrices asked for within this long are kept fresh in the background. */
export const MATRIX_KEEP_WARM_MS = 10 * 60_000;

/** Configuration FleetService reads (console config keys, spec §8.4). */
export interface FleetServiceOptions {
  prometheus: { url: string; queryTimeout: number; maxResponseBytes: number; maxRange: number };
  controller: { url: string; timeout: number };
  /** metric name prefix of the agents; default "svc" */
  metricsPrefix?: string;
  /** clock, epoch ms; default Date.now */
  now?: () => number;
  /** matrix snapshot bounds; defaults MATRIX_FRESH_MS, MATRIX_STALE_MS */
  matrixFreshMs?: number;
  matrixStaleMs?: number;
}

/** The fleet API's reads and the check proxy. */
export class FleetService {
  private readonly prom: PrometheusClient | undefined;
  private readonly controller: ControllerClient;
  private readonly prefix: string;
  private readonly now: () => number;
  private readonly matrices: SnapshotCache<FleetMatrix>;
  private stopWarm: (() => void) | undefined;

  constructor(private readonly opts: FleetServiceOptions) {
    const p = opts.prometheus;
    this.prom =
      p.url === ""
        ? undefined
        : new PrometheusClient({
            url: p.url.replace(/\/+$/, ""),
            queryTimeoutMs: p.queryTimeout,
            maxResponseBytes: p.maxResponseBytes,
          });
    this.controller = new ControllerClient({ url: opts.controller.url, timeoutMs: opts.controller.timeout });
    this.prefix = opts.metricsPrefix ?? "svc";
    this.now = opts.now ?? Date.now;
    this.matrices = new SnapshotCache(
      async (protocol) => this.computeMatrix(this.metrics(), await this.view(), protocol as FleetProtocol),
      opts.matrixFreshMs ?? MATRIX_FRESH_MS,
      opts.matrixStaleMs ?? MATRIX_STALE_MS,
    );
  }

  /**
   * Computes the TCP matrix (the Matrix page's default) at once and keeps recently viewed matrices fresh, so the
   * first viewer of a large fleet does not wait for the fleet-wide queries. Nothing runs without Prometheus.
   */
  start(): void {
    if (!this.prom || this.stopWarm) return;
    this.matrices.warm("tcp");
    this.stopWarm = this.matrices.keepWarm(1000, MATRIX_KEEP_WARM_MS);
  }

  /** Stops the background refreshes. */
  stop(): void {
    this.stopWarm?.();
    this.stopWarm = undefined;
  }

  private metrics(): PrometheusClient {
    if (!this.prom) throw new MetricsUnconfiguredError();
    return this.prom;
  }

  private async view(): Promise<FleetView> {
    return fleetView(await this.controller.topology());
  }

  private async computeMatrix(prom: PrometheusClient, view: FleetView, protocol: FleetProtocol) {
    const figures = await fleetFigures(prom, this.prefix, protocol, expectedPairs(view, protocol));
    return buildMatrix(view, protocol, figures, new Date(this.now()));
  }

  /** The matrix of `protocol` (a snapshot at most MATRIX_STALE_MS old; see SnapshotCache). */
  async matrix(protocol: FleetProtocol): Promise<FleetMatrix> {
    this.metrics();
    return this.matrices.get(protocol);
  }

  /** Nodes, agents and links (worst of tcp/udp/icmp); without Prometheus, the controller's view alone. */
  async topology(): Promise<FleetTopology> {
    const view = await this.view();
    if (!this.prom) return topologyWithoutFigures(view, new Date(this.now()));
    const ms = await Promise.all((["tcp", "udp", "icmp"] as const).map((p) => this.matrices.get(p)));
    return buildTopology(view, ms, new Date(this.now()));
  }

  /** Fleet summary; the four matrices. */
  async overview(): Promise<FleetOverview> {
    this.metrics();
    const view = await this.view();
    const m = (p: FleetProtocol) => this.matrices.get(p);
    const [tcp, udp, icmp, pmtu] = await Promise.all([m("tcp"), m("udp"), m("icmp"), m("pmtu")]);
    return buildOverview(view, { tcp, udp, icmp, pmtu }, new Date(this.now()));
  }

  /** One node's peers; UnknownNodeError when the inventory lacks it. */
  async node(name: string, protocol: FleetProtocol): Promise<FleetNode> {
    const prom = this.metrics();
    const view = await this.view();
    if (!view.known.has(name)) throw new UnknownNodeError(name);
    const [out, into] = await Promise.all([
      scopedFigures(prom, this.prefix, protocol, eq("source_node", name)),
      scopedFigures(prom, this.prefix, protocol, eq("destination_node", name)),
    ]);
    return buildNode(view, name, protocol, out, into);
  }

  /** One pair over `window`; UnknownNodeError for an unknown source or destination. */
  async pair(source: string, destination: string, window: PairWindow): Promise<FleetPair> {
    const prom = this.metrics();
    if (PAIR_WINDOWS[window] * 1000 > this.opts.prometheus.maxRange)
      throw new InvalidInputError(`window ${window} is longer than prometheus.maxRange`);
    const view = await this.view();
    for (const n of [source, destination]) if (!view.known.has(n)) throw new UnknownNodeError(n);
    return buildPair(prom, this.prefix, view, source, destination, window, this.now() / 1000);
  }

  /** Proxies a one-shot check to the controller's diagnostics route. */
  check(req: FleetCheckRequest): Promise<DiagnosticsAnswer> {
    return this.controller.diagnostics({
      source: req.source,
      destination: req.destination,
      type: req.type ?? "tcp",
    });
  }
}
