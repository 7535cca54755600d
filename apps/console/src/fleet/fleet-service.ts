/**
 * FleetService: joins the controller's topology with Prometheus figures into the fleet API's bodies. Matrices are
 * snapshots (SnapshotCache); the controller's inventory, node and pair pages are read again once the last read is
 * NOW_FRESH_MS old, and callers asking the same question while its reads are under way share them (InFlight); the
 * topology and the overview, built from the inventory and the matrices alone, are built again only when one of
 * those changed. Prometheus-backed answers throw
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
import type { PairStatesBody, TopologySnapshot } from "@svc/protocol";
import { InvalidInputError } from "../errors.ts";
import { ControllerClient, type DiagnosticsAnswer } from "./controller-client.ts";
import { CHUNK, chunks, type FigureMap } from "./figure-map.ts";
import { fleetFigures, scopedFigures } from "./figures.ts";
import { HistoryUnavailableError, MetricsUnconfiguredError, UnknownNodeError } from "./fleet-errors.ts";
import { expectedPairs, type FleetView, fleetView } from "./fleet-view.ts";
import { InFlight } from "./in-flight.ts";
import { Localization, type MatrixState } from "./localization.ts";
import { buildMatrix } from "./matrix.ts";
import { buildNode } from "./node-view.ts";
import { buildOverview, buildTopology, topologyWithoutFigures } from "./overview.ts";
import { buildPair, PAIR_WINDOWS } from "./pair-view.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { anyOf, eq } from "./promql.ts";
import { overlayPushed } from "./pushed-overlay.ts";
import { rawReads, recordedReads } from "./recording-rules.ts";
import { reportIntervalQuery, reportStaleAfter } from "./report-age.ts";
import { RulesDetector } from "./rules-detector.ts";
import { SnapshotCache } from "./snapshot-cache.ts";

/** Matrix snapshots younger than this are served without asking Prometheus. */
export const MATRIX_FRESH_MS = 2000;
/** Matrix snapshots younger than this are served at once while a refresh runs. */
export const MATRIX_STALE_MS = 60_000;
/** Matrices asked for within this long are kept fresh in the background. */
export const MATRIX_KEEP_WARM_MS = 10 * 60_000;
/**
 * Answers about now that are read afresh (the controller's inventory, node and pair pages) are served this long
 * after they were read: the inventory changes when nodes come and go and Prometheus's figures once per scrape
 * (seconds), while under 50 viewers a read per request was most of a fleet request's cost (the controller asked on
 * every fleet page, Prometheus 10 queries a node page, their CPU taken from the console on a small host). Half the
 * matrices' own freshness (MATRIX_FRESH_MS).
 */
export const NOW_FRESH_MS = 1000;
/** The controller's pair states are read again once the last read is this old (the matrices refresh together). */
export const PAIR_STATES_FRESH_MS = 500;

/** Pairs that failed within the window and whose latest results were neither all failures nor all successes. */
function mixedPairs(figures: FigureMap): Set<string> {
  const out = new Set<string>();
  for (const [k, f] of figures) if (f.recent === undefined && (f.failRatio ?? 0) > 0) out.add(k);
  return out;
}

/** An answer about now and the snapshots (inventory, matrices) it was built from. */
interface Built<T> {
  from: readonly unknown[];
  answer: T;
}

/**
 * `last` when it was built from the same snapshot objects as `from`, else `build()`'s answer. Serving the same
 * answer object again lets the route send the body it serialized for it; its generatedAt is when it was built
 * from those snapshots.
 */
function builtFrom<T>(last: Built<T> | undefined, from: readonly unknown[], build: () => T): Built<T> {
  if (last && last.from.length === from.length && last.from.every((o, i) => o === from[i])) return last;
  return { from, answer: build() };
}

/** Configuration FleetService reads (console config keys, spec §8.4). */
export interface FleetServiceOptions {
  prometheus: { url: string; queryTimeout: number; maxResponseBytes: number; maxRange: number };
  controller: { url: string; timeout: number };
  /** metric name prefix of the agents; default "svc" */
  metricsPrefix?: string;
  /** clock, epoch ms; default Date.now */
  now?: () => number;
  /**
   * The Time Machine's inventory: the controller's topology as it was at an instant (epoch ms), rebuilt from stored
   * baselines and events; undefined when nothing was stored by then. Absent (no database): past reads answer 503.
   */
  pastTopology?: (at: number) => Promise<TopologySnapshot | undefined>;
  /** matrix snapshot bounds; defaults MATRIX_FRESH_MS, MATRIX_STALE_MS */
  matrixFreshMs?: number;
  matrixStaleMs?: number;
  /** how long the inventory, node and pair pages are served after they were read; default NOW_FRESH_MS (0: none) */
  nowFreshMs?: number;
}

/** The fleet API's reads and the check proxy. */
export class FleetService {
  private readonly prom: PrometheusClient | undefined;
  private readonly controller: ControllerClient;
  private pushedRead: { at: number; body: Promise<PairStatesBody | undefined> } | undefined;
  private pushedSettled: PairStatesBody | undefined;
  private readonly prefix: string;
  private readonly now: () => number;
  /** whether Prometheus holds the recording rules (then the matrix reads their series) */
  private readonly rules: RulesDetector;
  private readonly matrices: SnapshotCache<FleetMatrix>;
  private stopWarm: (() => void) | undefined;
  // answers about now under way, shared by the callers asking the same while they run
  private readonly views: InFlight<FleetView>;
  private readonly nodes: InFlight<FleetNode>;
  private readonly pairs: InFlight<FleetPair>;
  private readonly topologies = new InFlight<FleetTopology>();
  private readonly overviews = new InFlight<FleetOverview>();
  /** the topology and overview now, with the inventory and matrix snapshots each was built from */
  private topologyBuilt: Built<FleetTopology> | undefined;
  private overviewBuilt: Built<FleetOverview> | undefined;
  /** each matrix snapshot's pairs with mixed latest results (matrixState) */
  private readonly mixed = new WeakMap<FleetMatrix, ReadonlySet<string>>();
  /** each matrix snapshot's pair states from the controller, when it was built with them */
  private readonly builtWith = new WeakMap<FleetMatrix, PairStatesBody>();
  /** each snapshot with the latest pair states laid over it, for the read it was laid with */
  private readonly overlays = new WeakMap<
    FleetMatrix,
    { latest: PairStatesBody | undefined; state: MatrixState }
  >();
  /** Settles when the start-up computation of the TCP matrix has ended (at once when none runs). */
  warmedUp: Promise<void> = Promise.resolve();
  /** where is the fault: suspects from the four matrices (GET /api/v1/fleet/suspects) */
  readonly localization: Localization;

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
    const keep = { keepMs: opts.nowFreshMs ?? NOW_FRESH_MS, now: this.now };
    this.views = new InFlight(keep);
    this.nodes = new InFlight(keep);
    this.pairs = new InFlight(keep);
    this.rules = new RulesDetector(this.prefix, this.now);
    this.matrices = new SnapshotCache(
      async (protocol) => this.computeMatrix(this.metrics(), await this.view(), protocol as FleetProtocol),
      opts.matrixFreshMs ?? MATRIX_FRESH_MS,
      opts.matrixStaleMs ?? MATRIX_STALE_MS,
    );
    this.localization = new Localization(this, this.now);
  }

  /** The longest range a metrics read may span (console `prometheus.maxRange`), ms. */
  get maxRangeMs(): number {
    return this.opts.prometheus.maxRange;
  }

  /**
   * Computes the TCP matrix (the Matrix page's default) at once and keeps recently viewed matrices fresh, so the
   * first viewer of a large fleet does not wait for the fleet-wide queries. Nothing runs without Prometheus.
   */
  start(): void {
    if (!this.prom || this.stopWarm) return;
    this.warmedUp = this.matrices.warm("tcp");
    this.stopWarm = this.matrices.keepWarm(1000, MATRIX_KEEP_WARM_MS);
    this.localization.start();
  }

  /** Stops the background refreshes. */
  stop(): void {
    this.stopWarm?.();
    this.stopWarm = undefined;
    this.localization.stop();
  }

  private metrics(): PrometheusClient {
    if (!this.prom) throw new MetricsUnconfiguredError();
    return this.prom;
  }

  /** The inventory now, or as of `at` (epoch ms) under the Time Machine. */
  private async view(at?: number): Promise<FleetView> {
    if (at === undefined)
      return this.views.run("now", async () => fleetView(await this.controller.topology()));
    const past = this.opts.pastTopology;
    if (!past)
      throw new HistoryUnavailableError("the Time Machine needs the console's database (no stored topology)");
    const snap = await past(at);
    if (!snap)
      throw new HistoryUnavailableError(`no topology was stored at or before ${new Date(at).toISOString()}`);
    return fleetView(snap);
  }

  /** Prometheus now, or evaluating instant queries at `at` (epoch ms). */
  private promAt(at?: number): PrometheusClient {
    const prom = this.metrics();
    return at === undefined ? prom : prom.atTime(at / 1000);
  }

  private async computeMatrix(prom: PrometheusClient, view: FleetView, protocol: FleetProtocol, at?: number) {
    const [loaded, pushed] = await Promise.all([
      this.rules.groups(prom, at),
      at === undefined ? this.pairStates() : undefined,
    ]);
    const reads = loaded.window
      ? recordedReads(this.prefix, protocol, loaded.now)
      : rawReads(this.prefix, protocol);
    const figures = await fleetFigures(
      prom,
      this.prefix,
      protocol,
      expectedPairs(view, protocol),
      reads,
      pushed,
    );
    const m = buildMatrix(view, protocol, figures, new Date(at ?? this.now()));
    this.mixed.set(m, mixedPairs(figures));
    if (pushed) this.builtWith.set(m, pushed);
    return m;
  }

  /**
   * The pair states the agents reported to the controller (GET /api/v1/pair-states), one read shared by the
   * matrices refreshed together (PAIR_STATES_FRESH_MS); undefined without a controller that serves them.
   */
  private pairStates(): Promise<PairStatesBody | undefined> {
    if (!this.controller.configured) return Promise.resolve(undefined);
    const now = this.now();
    const last = this.pushedRead;
    if (last && now - last.at < PAIR_STATES_FRESH_MS) return last.body;
    const body = this.controller.pairStates();
    this.pushedRead = { at: now, body };
    void body.then((b) => {
      if (this.pushedRead?.body === body) this.pushedSettled = b;
    });
    return body;
  }

  /**
   * For answers: the latest pair states already read, never waiting on the controller (a read is started when the
   * last one is PAIR_STATES_FRESH_MS old, and serves the answers after it).
   */
  private pairStatesNow(): PairStatesBody | undefined {
    void this.pairStates();
    return this.pushedSettled;
  }

  /**
   * The matrix of `protocol` (now: the snapshot; else as of `at`) with the pairs whose latest results were mixed
   * (some failed, some not: losing probes now, not only in the 5-minute window). For the localization.
   */
  async matrixState(protocol: FleetProtocol, at?: number): Promise<MatrixState> {
    if (at === undefined) return this.overlaid(await this.matrices.get(protocol));
    const matrix = await this.matrix(protocol, at);
    return { matrix, mixed: this.mixed.get(matrix) ?? new Set() };
  }

  /** A snapshot now with the latest pair states the agents reported laid over it (pushed-overlay.ts). */
  private overlaid(m: FleetMatrix): MatrixState {
    const latest = this.pairStatesNow();
    const cached = this.overlays.get(m);
    if (cached && cached.latest === latest) return cached.state;
    const state = overlayPushed(m, this.mixed.get(m) ?? new Set(), this.builtWith.get(m), latest);
    this.overlays.set(m, { latest, state });
    return state;
  }

  /**
   * When each of `nodes` last reported its own probe results (epoch seconds, the sample time of its newest
   * tcp/udp/icmp result series), now or at `at`; a node absent from the answer reports nothing: its series are
   * stale or gone, or its newest sample is older than a few of the fleet's report intervals (report-age.ts: a store
   * that answers an instant query from minutes back, as VictoriaMetrics does without staleness, would otherwise
   * keep a stopped agent reporting).
   */
  async reportedAt(nodes: readonly string[], at?: number): Promise<{ now: number; at: Map<string, number> }> {
    const prom = this.promAt(at);
    const out = new Map<string, number>();
    let now = (at ?? this.now()) / 1000;
    // no interval (the query failed, or no agent exports agent_info): the store's own staleness only
    const interval = prom.query(reportIntervalQuery(this.prefix)).then(
      (r) => r[0]?.value,
      () => undefined,
    );
    for (const chunk of chunks(nodes, CHUNK)) {
      // timestamp() drops the metric name: each family gets a label of its own so their series stay apart
      const stamped = (["tcp", "udp", "icmp"] as const).map(
        (p) =>
          `label_replace(timestamp(${this.prefix}_${p}_results_total{${anyOf("source_node", chunk)}}), "family", "${p}", "", "")`,
      );
      const q = `max by (source_node) (${stamped.join(" or ")})`;
      for (const s of await prom.query(q)) {
        out.set(s.metric.source_node ?? "", s.value);
        now = s.t;
      }
    }
    const staleAfter = reportStaleAfter(await interval);
    for (const [node, t] of out) if (now - t > staleAfter) out.delete(node);
    return { now, at: out };
  }

  /** The matrix of `protocol` now (a snapshot at most MATRIX_STALE_MS old; see SnapshotCache), or as of `at`. */
  async matrix(protocol: FleetProtocol, at?: number): Promise<FleetMatrix> {
    const prom = this.promAt(at);
    if (at === undefined) return this.overlaid(await this.matrices.get(protocol)).matrix;
    return this.computeMatrix(prom, await this.view(at), protocol, at);
  }

  /**
   * Nodes, agents and links (worst of tcp/udp/icmp, with the pair's path MTU reading); without Prometheus, the
   * controller's view alone.
   */
  async topology(at?: number): Promise<FleetTopology> {
    if (at === undefined) return this.topologies.run("now", () => this.topologyAt());
    return this.topologyAt(at);
  }

  private async topologyAt(at?: number): Promise<FleetTopology> {
    const view = await this.view(at);
    if (!this.prom) return topologyWithoutFigures(view, new Date(at ?? this.now()));
    const [tcp, udp, icmp, pmtu] = await Promise.all(
      (["tcp", "udp", "icmp", "pmtu"] as const).map((p) => this.matrixOf(view, p, at)),
    );
    const build = () =>
      buildTopology(
        view,
        [tcp, udp, icmp].filter((m) => m !== undefined),
        new Date(at ?? this.now()),
        pmtu,
      );
    if (at !== undefined) return build();
    this.topologyBuilt = builtFrom(this.topologyBuilt, [view, tcp, udp, icmp, pmtu], build);
    return this.topologyBuilt.answer;
  }

  /** Fleet summary; the four matrices. */
  async overview(at?: number): Promise<FleetOverview> {
    this.metrics();
    if (at === undefined) return this.overviews.run("now", () => this.overviewAt());
    return this.overviewAt(at);
  }

  private async overviewAt(at?: number): Promise<FleetOverview> {
    const view = await this.view(at);
    const m = (p: FleetProtocol) => this.matrixOf(view, p, at);
    const [tcp, udp, icmp, pmtu] = await Promise.all([m("tcp"), m("udp"), m("icmp"), m("pmtu")]);
    const build = () => buildOverview(view, { tcp, udp, icmp, pmtu }, new Date(at ?? this.now()));
    if (at !== undefined) return build();
    this.overviewBuilt = builtFrom(this.overviewBuilt, [view, tcp, udp, icmp, pmtu], build);
    return this.overviewBuilt.answer;
  }

  /** The cached matrix now; under the Time Machine, computed over the past inventory. */
  private async matrixOf(view: FleetView, protocol: FleetProtocol, at?: number): Promise<FleetMatrix> {
    if (at === undefined) return this.overlaid(await this.matrices.get(protocol)).matrix;
    return this.computeMatrix(this.promAt(at), view, protocol, at);
  }

  /** One node's peers; UnknownNodeError when the inventory lacks it. */
  async node(name: string, protocol: FleetProtocol, at?: number): Promise<FleetNode> {
    if (at === undefined)
      return this.nodes.run(JSON.stringify([protocol, name]), () => this.nodeAt(name, protocol));
    return this.nodeAt(name, protocol, at);
  }

  private async nodeAt(name: string, protocol: FleetProtocol, at?: number): Promise<FleetNode> {
    const prom = this.promAt(at);
    const view = await this.view(at);
    if (!view.known.has(name)) throw new UnknownNodeError(name);
    const pushed = at === undefined ? this.pairStatesNow() : undefined;
    const [out, into] = await Promise.all([
      scopedFigures(prom, this.prefix, protocol, eq("source_node", name), pushed),
      scopedFigures(prom, this.prefix, protocol, eq("destination_node", name), pushed),
    ]);
    return buildNode(view, name, protocol, out, into);
  }

  /** One pair over `window` ending now or at `at`; UnknownNodeError for an unknown source or destination. */
  async pair(source: string, destination: string, window: PairWindow, at?: number): Promise<FleetPair> {
    if (at === undefined)
      return this.pairs.run(JSON.stringify([window, source, destination]), () =>
        this.pairAt(source, destination, window),
      );
    return this.pairAt(source, destination, window, at);
  }

  private async pairAt(
    source: string,
    destination: string,
    window: PairWindow,
    at?: number,
  ): Promise<FleetPair> {
    const prom = this.promAt(at);
    if (PAIR_WINDOWS[window] * 1000 > this.opts.prometheus.maxRange)
      throw new InvalidInputError(`window ${window} is longer than prometheus.maxRange`);
    const view = await this.view(at);
    for (const n of [source, destination]) if (!view.known.has(n)) throw new UnknownNodeError(n);
    const pushed = at === undefined ? this.pairStatesNow() : undefined;
    return buildPair(prom, this.prefix, view, source, destination, window, (at ?? this.now()) / 1000, pushed);
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
