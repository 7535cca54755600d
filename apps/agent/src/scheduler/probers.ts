import { type DnsProbeResult, type DnsProbeTarget, probeDns } from "../probes/dns.ts";
import { type HttpProbeResult, type HttpProbeTarget, probeHttp } from "../probes/http.ts";
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

/** Everything the scheduler probes with. Without an icmp prober the icmp checker does not run. */
export interface Probers {
  tcp: TcpProber;
  udp: UdpProber;
  icmp?: IcmpProber;
  dns: DnsProber;
  http: HttpProber;
}

/** This package's tcp/udp/dns/http probes. */
export function defaultProbers(): Probers {
  return {
    tcp: { probe: probeTcp },
    udp: { probe: probeUdp },
    dns: { probe: probeDns },
    http: { probe: probeHttp },
  };
}
