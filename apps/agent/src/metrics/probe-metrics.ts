import { PAIR_STATE_PLANES, type PairStatePlane, type Peer, type Plane } from "@svc/protocol";
import type { DnsProbeResult } from "../probes/dns.ts";
import type { HttpProbeResult } from "../probes/http.ts";
import type { TcpProbeResult } from "../probes/tcp.ts";
import type { UdpProbeResult } from "../probes/udp.ts";
import { createFamilies, type Families } from "./families.ts";
import { SeriesTracker } from "./series-tracker.ts";
import type { CounterFamily } from "./store/counter.ts";
import type { Family, Labels, Series } from "./store/family.ts";
import { MetricRegistry } from "./store/registry.ts";

/** The agent's own identity as it appears in the source_* labels. */
export interface MetricsSource {
  nodeName: string;
  /** may be "" until the controller resolves it */
  zone: string;
}

/** The icmp outcome recorded per peer (the icmp prober's result). */
export interface IcmpRecord {
  ok: boolean;
  /** ms */
  rtts: number[];
  lossRatio: number;
}

/** The pmtu outcome recorded per peer (the pmtu probe's result). Sizes are IP packet bytes. */
export interface PmtuRecord {
  reading: "ok" | "reduced" | "blackhole" | "failed";
  probeBytes: number;
  pmtuBytes?: number;
}

/** One hop of a trace as recorded: spec §2.5 shape, rtt in ns, ip "" for a silent hop. */
export interface MtrHopRecord {
  number: number;
  ip: string;
  rtt: number;
}

/** The peer fields the metrics need. */
export type MetricsPeer = Pick<Peer, "nodeName" | "zone">;

export interface ProbeMetricsOptions {
  /** config `metricsPrefix`; families are named `${prefix}_${family}` */
  prefix: string;
  source: MetricsSource;
  /** the agent's version (agent_info) */
  version?: string;
  /** defaults to a fresh registry */
  registry?: MetricRegistry;
  /** told every change of a pair's state (peer_problem_ratio), e.g. the PairStateReporter */
  pairState?: PairStateListener;
}

/** What hears the pair state as it changes (the value of peer_problem_ratio; undefined: the pair is fine). */
export interface PairStateListener {
  set(plane: PairStatePlane, destination: string, ratio: number | undefined): void;
  forgetDestination(destination: string): void;
  forgetPlane(plane: PairStatePlane): void;
}

const STATE_PLANES = new Set<string>(PAIR_STATE_PLANES);

const ms = (v: number): number => v / 1000;
const result = (ok: boolean): string => (ok ? "success" : "fail");

/** Which of a peer's label sets a cached handle is for. */
enum Variant {
  Peer = 0,
  Success = 1,
  Fail = 2,
}

/**
 * A peer's label sets, built once, and its series handles, made (and told to the tracker) on first use: the
 * probe path runs ~60 times a second per 100 peers, and a record is then a write to a handle, no label lookup.
 * Dropped whenever series of the peer are removed, so a cached handle is always in its family.
 */
interface PeerCache {
  zone: string;
  labels: Labels;
  success: Labels;
  fail: Labels;
  handles: Map<Family<Series>, [Series?, Series?, Series?]>;
  /** per plane: consecutive failed runs (tcp), and the peer_problem_ratio labels */
  fails: Map<string, number>;
  problem: Map<string, Labels>;
}

/** tcp runs in a row that must fail before the pair's problem ratio is 1 (the latest results all failed). */
export const FAILING_AFTER_RUNS = 2;

/**
 * The agent's probe metric families (reference/metrics.md) on one registry. Every series written is tracked so
 * that a departed peer's series (histograms, counters and gauges alike) or a disabled plane's series can be
 * removed. When the source identity changes (zone learnt later), every series is dropped and starts afresh
 * under the new labels, except probe_intended, which is re-emitted at once under the new labels.
 */
export class ProbeMetrics {
  readonly registry: MetricRegistry;
  readonly #f: Families;
  readonly #tracker = new SeriesTracker();
  #source: MetricsSource;
  /** dest -> (peer, planes) for probe_intended, kept to re-emit after a source change */
  readonly #intended = new Map<string, { peer: MetricsPeer; planes: Plane[] }>();
  /** by destination node; dropped whenever series of that peer are removed */
  readonly #peerCache = new Map<string, PeerCache>();
  readonly #version: string;
  readonly #state: PairStateListener | undefined;

  constructor(options: ProbeMetricsOptions) {
    this.registry = options.registry ?? new MetricRegistry();
    this.#f = createFamilies(options.prefix, this.registry);
    this.#source = { ...options.source };
    this.#version = options.version ?? "unknown";
    this.#state = options.pairState;
    this.#f.agentInfo.series(this.#info()).set(1);
  }

  #info(): Labels {
    return { ...this.#src(), version: this.#version };
  }

  get source(): MetricsSource {
    return { ...this.#source };
  }

  /** Changes the source labels; existing series are removed (they carried the old identity). */
  setSource(source: MetricsSource): void {
    if (source.nodeName === this.#source.nodeName && source.zone === this.#source.zone) return;
    this.#tracker.remove({});
    this.#peerCache.clear();
    this.#f.agentInfo.remove(this.#info());
    this.#source = { ...source };
    this.#f.agentInfo.series(this.#info()).set(1);
    for (const { peer, planes } of [...this.#intended.values()]) this.setIntended(peer, planes);
  }

  #peerLabels(peer: MetricsPeer): Labels {
    return {
      source_node: this.#source.nodeName,
      destination_node: peer.nodeName,
      source_zone: this.#source.zone,
      destination_zone: peer.zone,
    };
  }

  #cached(peer: MetricsPeer): PeerCache {
    const c = this.#peerCache.get(peer.nodeName);
    if (c && c.zone === peer.zone) return c;
    const labels = this.#peerLabels(peer);
    const fresh: PeerCache = {
      zone: peer.zone,
      labels,
      success: { ...labels, result: "success" },
      fail: { ...labels, result: "fail" },
      handles: new Map(),
      fails: new Map(),
      problem: new Map(),
    };
    this.#peerCache.set(peer.nodeName, fresh);
    return fresh;
  }

  /** The cached handle of a peer's series in `family`, made and tracked under `plane` on first use. */
  #handle<S extends Series>(
    c: PeerCache,
    plane: string,
    dest: string,
    family: Family<S>,
    variant: Variant,
  ): S {
    let row = c.handles.get(family);
    if (!row) {
      row = [undefined, undefined, undefined];
      c.handles.set(family, row);
    }
    const cached = row[variant] as S | undefined;
    if (cached) return cached;
    const labels = variant === Variant.Peer ? c.labels : variant === Variant.Success ? c.success : c.fail;
    const s = this.#tracked(plane, dest, family, labels);
    row[variant] = s;
    return s;
  }

  #src(): Labels {
    return { source_node: this.#source.nodeName, source_zone: this.#source.zone };
  }

  /** The series of `family` with `labels`, told to the tracker as owned by (plane, dest). */
  #tracked<S extends Series>(plane: string, dest: string, family: Family<S>, labels: Labels): S {
    const s = family.series(labels);
    this.#tracker.track(plane, dest, family, s.key);
    return s;
  }

  recordTcp(peer: MetricsPeer, r: TcpProbeResult): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.connectMs !== undefined) {
      this.#handle(c, "tcp", dest, f.tcpConnect, Variant.Peer).observe(ms(r.connectMs));
    }
    if (r.totalMs !== undefined)
      this.#handle(c, "tcp", dest, f.tcpTotal, Variant.Peer).observe(ms(r.totalMs));
    this.#count(c, "tcp", dest, f.tcpResults, r.ok);
    this.#problem(c, "tcp", dest, !r.ok, 0);
  }

  /** Jitter is removed (not left stale) for a run with fewer than two replies. */
  recordUdp(peer: MetricsPeer, r: UdpProbeResult): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.rttsMs.length > 0) {
      const rtt = this.#handle(c, "udp", dest, f.udpRtt, Variant.Peer);
      for (const v of r.rttsMs) rtt.observe(ms(v));
    }
    // not cached: the series comes and goes with the run's reply count
    if (r.jitterMs !== undefined) this.#tracked("udp", dest, f.udpJitter, c.labels).set(ms(r.jitterMs));
    else f.udpJitter.remove(c.labels);
    this.#handle(c, "udp", dest, f.udpLoss, Variant.Peer).set(r.lossRatio);
    this.#count(c, "udp", dest, f.udpResults, r.ok);
    this.#problem(c, "udp", dest, !r.ok, r.lossRatio);
  }

  recordIcmp(peer: MetricsPeer, r: IcmpRecord): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.rtts.length > 0) {
      const rtt = this.#handle(c, "icmp", dest, f.icmpRtt, Variant.Peer);
      for (const v of r.rtts) rtt.observe(ms(v));
    }
    this.#handle(c, "icmp", dest, f.icmpLoss, Variant.Peer).set(r.lossRatio);
    this.#count(c, "icmp", dest, f.icmpResults, r.ok);
    this.#problem(c, "icmp", dest, !r.ok, r.lossRatio);
  }

  /**
   * peer_problem_ratio: the pair's state now, so a console reads the few pairs in trouble instead of evaluating
   * every pair's counters (issue 35). tcp: the share of its latest two runs that failed (1: both, an outage; 0.5:
   * the latest only); udp and icmp: the share of packets the latest run lost (1: none came back). No series for a
   * pair that is fine (removed, not left at 0).
   */
  #problem(c: PeerCache, plane: string, dest: string, failed: boolean, loss: number): void {
    let value = loss;
    if (plane === "tcp") {
      const run = failed ? (c.fails.get(plane) ?? 0) + 1 : 0;
      c.fails.set(plane, run);
      value = Math.min(run, FAILING_AFTER_RUNS) / FAILING_AFTER_RUNS;
    } else if (failed) value = 1;
    let labels = c.problem.get(plane);
    this.#state?.set(plane as PairStatePlane, dest, value === 0 ? undefined : value);
    if (value === 0) {
      if (labels) this.#f.peerProblem.remove(labels);
      return;
    }
    if (!labels) {
      labels = { ...c.labels, plane };
      c.problem.set(plane, labels);
    }
    this.#tracked(plane, dest, this.#f.peerProblem, labels).set(value);
  }

  /**
   * Counts one result. The first result of a peer also creates the other result's series at 0: Prometheus's
   * increase() and irate() need a sample before a counter's first rise, so a fail series born at its first
   * failure would hide that failure for a scrape (the console's tier reads the latest rise, tiers.ts).
   */
  #count(c: PeerCache, plane: string, dest: string, family: CounterFamily, ok: boolean) {
    this.#handle(c, plane, dest, family, ok ? Variant.Success : Variant.Fail).inc();
    this.#handle(c, plane, dest, family, ok ? Variant.Fail : Variant.Success);
  }

  /**
   * A pmtu probe outcome. probe_bytes: the size probed; pmtu_bytes: the size that crossed (removed, not left
   * stale, when nothing crossed); results_total: success for ok and reduced, fail for a black hole. A plain
   * failure (not even the small datagram crossed: the peer or its echo server is down) is not a path MTU
   * verdict and counts in neither result; the udp checker reports it.
   */
  recordPmtu(peer: MetricsPeer, r: PmtuRecord): void {
    const l = this.#peerLabels(peer);
    this.#tracked("pmtu", peer.nodeName, this.#f.pmtuProbeBytes, l).set(r.probeBytes);
    if (r.pmtuBytes !== undefined)
      this.#tracked("pmtu", peer.nodeName, this.#f.pmtuBytes, l).set(r.pmtuBytes);
    else this.#f.pmtuBytes.remove(l);
    const problem = { ...l, plane: "pmtu" };
    this.#state?.set("pmtu", peer.nodeName, r.reading === "blackhole" ? 1 : undefined);
    if (r.reading === "blackhole") this.#tracked("pmtu", peer.nodeName, this.#f.peerProblem, problem).set(1);
    else this.#f.peerProblem.remove(problem);
    if (r.reading === "failed") return;
    const ok = r.reading === "ok" || r.reading === "reduced";
    this.#tracked("pmtu", peer.nodeName, this.#f.pmtuResults, { ...l, result: result(ok) }).inc();
    this.#tracked("pmtu", peer.nodeName, this.#f.pmtuResults, { ...l, result: result(!ok) }); // born at 0: see #count
  }

  /** Counts one reactive trace started toward peer (mtr_triggered_total). */
  recordMtrTriggered(peer: MetricsPeer): void {
    this.#tracked("mtr", peer.nodeName, this.#f.mtrTriggered, this.#peerLabels(peer)).inc();
  }

  /**
   * A completed trace: mtr_hops = its hop count, and one mtr_hop_rtt_seconds series per answering hop (silent
   * hops have no RTT and no series). The peer's previous hop series are replaced, so hops that vanished or
   * changed address do not linger.
   */
  recordMtr(peer: MetricsPeer, hops: readonly MtrHopRecord[]): void {
    this.#tracker.remove({ plane: "mtr-hops", dest: peer.nodeName });
    this.#tracked("mtr-hops", peer.nodeName, this.#f.mtrHops, this.#peerLabels(peer)).set(hops.length);
    for (const hop of hops) {
      if (hop.ip === "") continue;
      const hl = {
        source_node: this.#source.nodeName,
        destination_node: peer.nodeName,
        hop_number: String(hop.number),
        hop_ip: hop.ip,
      };
      this.#tracked("mtr-hops", peer.nodeName, this.#f.mtrHopRtt, hl).set(hop.rtt / 1e9);
    }
  }

  /** Sets probe_intended=1 for exactly these planes of the pair (replacing earlier ones); [] clears. */
  setIntended(peer: MetricsPeer, planes: Plane[]): void {
    this.#tracker.remove({ plane: "intended", dest: peer.nodeName });
    if (planes.length === 0) {
      this.#intended.delete(peer.nodeName);
      return;
    }
    this.#intended.set(peer.nodeName, {
      peer: { nodeName: peer.nodeName, zone: peer.zone },
      planes: [...planes],
    });
    const l = this.#peerLabels(peer);
    for (const p of planes)
      this.#tracked("intended", peer.nodeName, this.#f.probeIntended, { ...l, plane: p }).set(1);
  }

  recordDns(r: DnsProbeResult): void {
    const l = { host: r.host, resolver: r.resolver, ...this.#src() };
    this.#tracked("dns", "", this.#f.dnsDuration, l).observe(ms(r.durationMs));
    this.#tracked("dns", "", this.#f.dnsResults, { ...l, result: result(r.ok) }).inc();
  }

  /** Phase histograms get only the phases that happened (no dns for an IP literal, no tls for http). */
  recordHttp(r: HttpProbeResult): void {
    const l = { url: r.url, ...this.#src() };
    const phases = [
      [this.#f.httpDns, r.dnsMs],
      [this.#f.httpConnect, r.connectMs],
      [this.#f.httpTls, r.tlsMs],
      [this.#f.httpTtfb, r.ttfbMs],
      [this.#f.httpTotal, r.totalMs],
    ] as const;
    for (const [family, v] of phases)
      if (v !== undefined) this.#tracked("http", "", family, l).observe(ms(v));
    const rl = { url: r.url, method: r.method, status_code: String(r.statusCode), ...this.#src() };
    this.#tracked("http", "", this.#f.httpResults, { ...rl, result: result(r.ok) }).inc();
  }

  /** Removes every series of a departed peer, in every family (probe_intended included). */
  removePeer(destinationNodeName: string): void {
    this.#intended.delete(destinationNodeName);
    this.#peerCache.delete(destinationNodeName);
    this.#tracker.remove({ dest: destinationNodeName });
    this.#state?.forgetDestination(destinationNodeName);
  }

  /** Removes one plane's series of one peer (the peer stopped running that plane). */
  removePeerPlane(destinationNodeName: string, plane: Plane): void {
    this.#peerCache.delete(destinationNodeName);
    if (STATE_PLANES.has(plane)) this.#state?.set(plane as PairStatePlane, destinationNodeName, undefined);
    this.#tracker.remove({
      dest: destinationNodeName,
      plane: (p) => p === plane || (plane === "mtr" && p === "mtr-hops"),
    });
  }

  /** Removes every series of a plane (checker disabled, or its targets changed); probe_intended is kept. */
  removePlane(plane: Plane): void {
    this.#peerCache.clear();
    if (STATE_PLANES.has(plane)) this.#state?.forgetPlane(plane as PairStatePlane);
    this.#tracker.remove({ plane: (p) => p === plane || (plane === "mtr" && p === "mtr-hops") });
  }

  /** The text exposition of the registry. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
