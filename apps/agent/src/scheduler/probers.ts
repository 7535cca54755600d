import { type DnsProbeResult, type DnsProbeTarget, probeDns } from "../probes/dns.ts";
import { type HttpProbeResult, type HttpProbeTarget, probeHttp } from "../probes/http.ts";
import { type MtrProbeTarget, type MtrResult, probeMtr } from "../probes/mtr.ts";
import { type PmtuProbeTarget, type PmtuResult, probePmtu } from "../probes/pmtu.ts";
import { probeTcp, type TcpProbeResult, type TcpProbeTarget } from "../probes/tcp.ts";
import { probeUdp, type UdpProbeResult, type UdpProbeTarget } from "../probes/udp.ts";

/** The icmp prober the scheduler drives (implemented elsewhere). `rtts` in ms; never rejects for network outcomes. */
export interface IcmpProber {
  probe(t: { address: string; timeoutMs: number; count?: number }): Promise<{
    ok: boolean;
    rtts: number[];
    lossRatio: number;
    error?: string;
  }>;
}
export interface TcpProber {
  probe(t: TcpProbeTarget): Promise<TcpProbeResult>;
}
export interface UdpProber {
  probe(t: UdpProbeTarget): Promise<UdpProbeResult>;
}
export interface DnsProber {
  probe(t: DnsProbeTarget): Promise<DnsProbeResult[]>;
}
export interface HttpProber {
  probe(t: HttpProbeTarget): Promise<HttpProbeResult[]>;
}

/** Path MTU toward a peer's echo server; never rejects. */
export interface PmtuProber {
  probe(t: PmtuProbeTarget): Promise<PmtuResult>;
}
/** Hop-by-hop trace toward an address; never rejects. */
export interface MtrProber {
  probe(t: MtrProbeTarget): Promise<MtrResult>;
}

/**
 * Everything the scheduler probes with. Without an icmp prober the icmp checker does not run; without a pmtu
 * prober neither does pmtu; without an mtr prober no reactive trace runs.
 */
export interface Probers {
  tcp: TcpProber;
  udp: UdpProber;
  icmp?: IcmpProber;
  pmtu?: PmtuProber;
  mtr?: MtrProber;
  dns: DnsProber;
  http: HttpProber;
}

/** This package's tcp/udp/pmtu/mtr/dns/http probes (icmp holds sockets, so the caller creates it). */
export function defaultProbers(): Probers {
  return {
    tcp: { probe: probeTcp },
    udp: { probe: probeUdp },
    pmtu: { probe: probePmtu },
    mtr: { probe: probeMtr },
    dns: { probe: probeDns },
    http: { probe: probeHttp },
  };
}
