import type { Peer, Plane } from "@svc/protocol";
import { Registry } from "prom-client";
import type { DnsProbeResult } from "../probes/dns.ts";
import type { HttpProbeResult } from "../probes/http.ts";
import type { TcpProbeResult } from "../probes/tcp.ts";
import type { UdpProbeResult } from "../probes/udp.ts";
import { createFamilies, type Families, type Family } from "./families.ts";
import { SeriesTracker } from "./series-tracker.ts";

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
  /** defaults to a fresh registry (never prom-client's global one) */
  registry?: Registry;
}

const ms = (v: number): number => v / 1000;
const result = (ok: boolean): string => (ok ? "success" : "fail");

/**
 * A peer's label sets, built once and reused for every record (the probe path runs ~100 times a second per
 * 100 peers), and which (family, label set) pairs the tracker already knows, so it is told only once.
 */
interface PeerLabelCache {
  zone: string;
  labels: Record<string, string>;
  success: Record<string, string>;
  fail: Record<string, string>;
  tracked: Map<Family, Set<Record<string, string>>>;
}

/**
 * The agent's probe metric families (reference/metrics.md) on one registry. Every series written is tracked so
 * that a departed peer's series (histograms, counters and gauges alike) or a disabled plane's series can be
 * removed. When the source identity changes (zone learnt later), every series is dropped and starts afresh
 * under the new labels, except probe_intended, which is re-emitted at once under the new labels.
 */
export class ProbeMetrics {
  readonly registry: Registry;
  readonly #f: Families;
  readonly #tracker = new SeriesTracker();
  #source: MetricsSource;
  /** dest -> (peer, planes) for probe_intended, kept to re-emit after a source change */
  readonly #intended = new Map<string, { peer: MetricsPeer; planes: Plane[] }>();
  /** by destination node; dropped whenever series of that peer are removed */
  readonly #peerCache = new Map<string, PeerLabelCache>();

  constructor(options: ProbeMetricsOptions) {
    this.registry = options.registry ?? new Registry();
    this.#f = createFamilies(options.prefix, this.registry);
    this.#source = { ...options.source };
  }

  get source(): MetricsSource {
    return { ...this.#source };
  }

  /** Changes the source labels; existing series are removed (they carried the old identity). */
  setSource(source: MetricsSource): void {
    if (source.nodeName === this.#source.nodeName && source.zone === this.#source.zone) return;
    this.#tracker.remove({});
    this.#peerCache.clear();
    this.#source = { ...source };
    for (const { peer, planes } of [...this.#intended.values()]) this.setIntended(peer, planes);
  }

  #peerLabels(peer: MetricsPeer): Record<string, string> {
    return {
      source_node: this.#source.nodeName,
      destination_node: peer.nodeName,
      source_zone: this.#source.zone,
      destination_zone: peer.zone,
    };
  }

  #cached(peer: MetricsPeer): PeerLabelCache {
    const c = this.#peerCache.get(peer.nodeName);
    if (c && c.zone === peer.zone) return c;
    const labels = this.#peerLabels(peer);
    const fresh: PeerLabelCache = {
      zone: peer.zone,
      labels,
      success: { ...labels, result: "success" },
      fail: { ...labels, result: "fail" },
      tracked: new Map(),
    };
    this.#peerCache.set(peer.nodeName, fresh);
    return fresh;
  }

  /** Tells the tracker about a cached label set of a peer's family, once. */
  #trackCached(
    c: PeerLabelCache,
    plane: string,
    dest: string,
    family: Family,
    labels: Record<string, string>,
  ) {
    let sets = c.tracked.get(family);
    if (!sets) {
      sets = new Set();
      c.tracked.set(family, sets);
    }
    if (sets.has(labels)) return;
    sets.add(labels);
    this.#tracker.track(plane, dest, family, labels);
  }

  #src(): Record<string, string> {
    return { source_node: this.#source.nodeName, source_zone: this.#source.zone };
  }

  #track(
    plane: string,
    dest: string,
    family: Family,
    labels: Record<string, string>,
  ): Record<string, string> {
    this.#tracker.track(plane, dest, family, labels);
    return labels;
  }

  #observe(
    plane: string,
    dest: string,
    family: Families["tcpConnect"],
    labels: Record<string, string>,
    v: number,
  ) {
    family.observe(this.#track(plane, dest, family, labels), v);
  }

  #inc(plane: string, dest: string, family: Families["tcpResults"], labels: Record<string, string>) {
    family.inc(this.#track(plane, dest, family, labels));
  }

  #set(plane: string, dest: string, family: Families["udpLoss"], labels: Record<string, string>, v: number) {
    family.set(this.#track(plane, dest, family, labels), v);
  }

  recordTcp(peer: MetricsPeer, r: TcpProbeResult): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.connectMs !== undefined) {
      this.#trackCached(c, "tcp", dest, f.tcpConnect, c.labels);
      f.tcpConnect.observe(c.labels, ms(r.connectMs));
    }
    if (r.totalMs !== undefined) {
      this.#trackCached(c, "tcp", dest, f.tcpTotal, c.labels);
      f.tcpTotal.observe(c.labels, ms(r.totalMs));
    }
    this.#count(c, "tcp", dest, f.tcpResults, r.ok);
  }

  /** Jitter is removed (not left stale) for a run with fewer than two replies. */
  recordUdp(peer: MetricsPeer, r: UdpProbeResult): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.rttsMs.length > 0) this.#trackCached(c, "udp", dest, f.udpRtt, c.labels);
    for (const rtt of r.rttsMs) f.udpRtt.observe(c.labels, ms(rtt));
    if (r.jitterMs !== undefined) {
      this.#trackCached(c, "udp", dest, f.udpJitter, c.labels);
      f.udpJitter.set(c.labels, ms(r.jitterMs));
    } else f.udpJitter.remove(c.labels);
    this.#trackCached(c, "udp", dest, f.udpLoss, c.labels);
    f.udpLoss.set(c.labels, r.lossRatio);
    this.#count(c, "udp", dest, f.udpResults, r.ok);
  }

  recordIcmp(peer: MetricsPeer, r: IcmpRecord): void {
    const c = this.#cached(peer);
    const f = this.#f;
    const dest = peer.nodeName;
    if (r.rtts.length > 0) this.#trackCached(c, "icmp", dest, f.icmpRtt, c.labels);
    for (const rtt of r.rtts) f.icmpRtt.observe(c.labels, ms(rtt));
    this.#trackCached(c, "icmp", dest, f.icmpLoss, c.labels);
    f.icmpLoss.set(c.labels, r.lossRatio);
    this.#count(c, "icmp", dest, f.icmpResults, r.ok);
  }

  #count(c: PeerLabelCache, plane: string, dest: string, family: Families["tcpResults"], ok: boolean) {
    const labels = ok ? c.success : c.fail;
    this.#trackCached(c, plane, dest, family, labels);
    family.inc(labels);
  }

  /**
   * A pmtu probe outcome. probe_bytes: the size probed; pmtu_bytes: the size that crossed (removed, not left
   * stale, when nothing crossed); results_total: success for ok and reduced, fail for a black hole. A plain
   * failure (not even the small datagram crossed: the peer or its echo server is down) is not a path MTU
   * verdict and counts in neither result; the udp checker reports it.
   */
  recordPmtu(peer: MetricsPeer, r: PmtuRecord): void {
    const l = this.#peerLabels(peer);
    this.#set("pmtu", peer.nodeName, this.#f.pmtuProbeBytes, l, r.probeBytes);
    if (r.pmtuBytes !== undefined) this.#set("pmtu", peer.nodeName, this.#f.pmtuBytes, l, r.pmtuBytes);
    else this.#f.pmtuBytes.remove(l);
    if (r.reading === "failed") return;
    const ok = r.reading === "ok" || r.reading === "reduced";
    this.#inc("pmtu", peer.nodeName, this.#f.pmtuResults, { ...l, result: result(ok) });
  }

  /** Counts one reactive trace started toward peer (mtr_triggered_total). */
  recordMtrTriggered(peer: MetricsPeer): void {
    this.#inc("mtr", peer.nodeName, this.#f.mtrTriggered, this.#peerLabels(peer));
  }

  /**
   * A completed trace: mtr_hops = its hop count, and one mtr_hop_rtt_seconds series per answering hop (silent
   * hops have no RTT and no series). The peer's previous hop series are replaced, so hops that vanished or
   * changed address do not linger.
   */
  recordMtr(peer: MetricsPeer, hops: readonly MtrHopRecord[]): void {
    this.#tracker.remove({ plane: "mtr-hops", dest: peer.nodeName });
    this.#set("mtr-hops", peer.nodeName, this.#f.mtrHops, this.#peerLabels(peer), hops.length);
    for (const hop of hops) {
      if (hop.ip === "") continue;
      const hl = {
        source_node: this.#source.nodeName,
        destination_node: peer.nodeName,
        hop_number: String(hop.number),
        hop_ip: hop.ip,
      };
      this.#set("mtr-hops", peer.nodeName, this.#f.mtrHopRtt, hl, hop.rtt / 1e9);
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
      this.#set("intended", peer.nodeName, this.#f.probeIntended, { ...l, plane: p }, 1);
  }

  recordDns(r: DnsProbeResult): void {
    const l = { host: r.host, resolver: r.resolver, ...this.#src() };
    this.#observe("dns", "", this.#f.dnsDuration, l, ms(r.durationMs));
    this.#inc("dns", "", this.#f.dnsResults, { ...l, result: result(r.ok) });
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
    for (const [family, v] of phases) if (v !== undefined) this.#observe("http", "", family, l, ms(v));
    const rl = { url: r.url, method: r.method, status_code: String(r.statusCode), ...this.#src() };
    this.#inc("http", "", this.#f.httpResults, { ...rl, result: result(r.ok) });
  }

  /** Removes every series of a departed peer, in every family (probe_intended included). */
  removePeer(destinationNodeName: string): void {
    this.#intended.delete(destinationNodeName);
    this.#peerCache.delete(destinationNodeName);
    this.#tracker.remove({ dest: destinationNodeName });
  }

  /** Removes one plane's series of one peer (the peer stopped running that plane). */
  removePeerPlane(destinationNodeName: string, plane: Plane): void {
    this.#peerCache.delete(destinationNodeName);
    this.#tracker.remove({
      dest: destinationNodeName,
      plane: (p) => p === plane || (plane === "mtr" && p === "mtr-hops"),
    });
  }

  /** Removes every series of a plane (checker disabled, or its targets changed); probe_intended is kept. */
  removePlane(plane: Plane): void {
    this.#peerCache.clear();
    this.#tracker.remove({ plane: (p) => p === plane || (plane === "mtr" && p === "mtr-hops") });
  }

  /** The text exposition of the registry. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
