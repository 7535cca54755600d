import { CounterFamily } from "./store/counter.ts";
import { GaugeFamily } from "./store/gauge.ts";
import { HistogramFamily } from "./store/histogram.ts";
import type { MetricRegistry } from "./store/registry.ts";

/** Peer label names (reference/metrics.md). */
export const PEER_LABELS = ["source_node", "destination_node", "source_zone", "destination_zone"] as const;
const SOURCE = ["source_node", "source_zone"] as const;

/**
 * Histogram buckets, seconds: 100 us to 5 s, roughly 1-2.5-5 per decade. On a LAN an RTT is 0.1-2 ms, so the
 * sub-millisecond end keeps resolution there; the top (5 s) covers the largest configured timeouts (dns 2s,
 * http 5s) so timeouts land in +Inf only when the probe really ran over.
 */
export const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/**
 * Makers of families registered on `registry` with `${prefix}_` names (histograms with LATENCY_BUCKETS), for the
 * probe families here and the external checks' (ExternalMetrics).
 */
export function familyMakers(prefix: string, registry: MetricRegistry) {
  const n = (family: string) => `${prefix}_${family}`;
  return {
    hist: (family: string, help: string, labelNames: readonly string[]) =>
      registry.register(new HistogramFamily({ name: n(family), help, labelNames, buckets: LATENCY_BUCKETS })),
    gauge: (family: string, help: string, labelNames: readonly string[]) =>
      registry.register(new GaugeFamily({ name: n(family), help, labelNames })),
    counter: (family: string, help: string, labelNames: readonly string[]) =>
      registry.register(new CounterFamily({ name: n(family), help, labelNames })),
  };
}

/** Every agent probe family, registered on one registry with `${prefix}_` names. */
export function createFamilies(prefix: string, registry: MetricRegistry) {
  const { hist, gauge, counter } = familyMakers(prefix, registry);
  const peer = PEER_LABELS;
  const peerResult = [...PEER_LABELS, "result"];
  const httpPhase = ["url", ...SOURCE];
  return {
    tcpConnect: hist("tcp_connect_duration_seconds", "TCP connect duration to a peer.", peer),
    tcpTotal: hist(
      "tcp_total_duration_seconds",
      "TCP connect plus close (our FIN, answered by the peer's reset or FIN) duration.",
      peer,
    ),
    tcpResults: counter("tcp_results_total", "TCP probe results.", peerResult),
    udpRtt: hist("udp_rtt_seconds", "UDP echo round-trip time per datagram.", peer),
    udpJitter: gauge(
      "udp_jitter_seconds",
      "Mean absolute difference of consecutive UDP RTTs, last run.",
      peer,
    ),
    udpLoss: gauge("udp_packet_loss_ratio", "Share of UDP datagrams without an echo, last run.", peer),
    udpResults: counter("udp_results_total", "UDP probe results.", peerResult),
    icmpRtt: hist("icmp_rtt_seconds", "ICMP echo round-trip time.", peer),
    icmpLoss: gauge("icmp_packet_loss_ratio", "Share of ICMP echoes without a reply, last run.", peer),
    icmpResults: counter("icmp_results_total", "ICMP probe results.", peerResult),
    pmtuBytes: gauge("pmtu_bytes", "Largest packet size that crossed the path.", peer),
    pmtuProbeBytes: gauge("pmtu_probe_bytes", "Packet size probed.", peer),
    pmtuResults: counter("pmtu_results_total", "Path MTU probe results (fail = black hole).", peerResult),
    dnsDuration: hist("dns_duration_seconds", "DNS lookup duration.", ["host", "resolver", ...SOURCE]),
    dnsResults: counter("dns_results_total", "DNS lookup results.", [
      "host",
      "resolver",
      ...SOURCE,
      "result",
    ]),
    httpDns: hist("http_dns_duration_seconds", "HTTP check: time until name lookup done.", httpPhase),
    httpConnect: hist("http_connect_duration_seconds", "HTTP check: time until TCP connected.", httpPhase),
    httpTls: hist("http_tls_duration_seconds", "HTTP check: time until TLS handshake done.", httpPhase),
    httpTtfb: hist("http_ttfb_seconds", "HTTP check: time until response headers.", httpPhase),
    httpTotal: hist("http_total_duration_seconds", "HTTP check: time until body read.", httpPhase),
    httpResults: counter("http_results_total", "HTTP check results.", [
      "url",
      "method",
      "status_code",
      ...SOURCE,
      "result",
    ]),
    mtrTriggered: counter("mtr_triggered_total", "Hop-by-hop traces triggered towards a peer.", peer),
    mtrHops: gauge("mtr_hops", "Hops on the last trace towards a peer.", peer),
    mtrHopRtt: gauge("mtr_hop_rtt_seconds", "RTT per hop on the last trace.", [
      "source_node",
      "destination_node",
      "hop_number",
      "hop_ip",
    ]),
    probeIntended: gauge("probe_intended", "1 where the plan intends this pair to be probed.", [
      ...peer,
      "plane",
    ]),
    peerProblem: gauge(
      "peer_problem_ratio",
      "Pairs in trouble now, by plane: tcp the share of the latest two runs that failed, udp and icmp the share " +
        "of packets the latest run lost, pmtu 1 for a black hole; no series for a pair that is fine.",
      [...peer, "plane"],
    ),
    agentInfo: gauge("agent_info", "1 for this agent: its version (it exports peer_problem_ratio).", [
      ...SOURCE,
      "version",
    ]),
  };
}

export type Families = ReturnType<typeof createFamilies>;
/** Any probe family. */
export type Family = Families[keyof Families];
