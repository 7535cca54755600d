/** The nft match of one protocol's probes towards a lab node. */

/** The probe ports of a lab node. */
export interface ProbeTarget {
  address: string;
  /** TCP probe port of the node (its httpPort) */
  tcpPort: number;
  /** UDP echo port of the node (its grpcPort) */
  udpPort: number;
}

/**
 * The nft match for probe traffic of one protocol towards `to`. Matching the probe's destination port keeps the
 * fault on the ordered pair: the reverse direction's probes (whose echo replies also travel from -> to) pass.
 */
export function probeMatch(protocol: "tcp" | "udp" | "icmp" | "all", to: ProbeTarget): string {
  switch (protocol) {
    case "tcp":
      return `ip daddr ${to.address} tcp dport ${to.tcpPort}`;
    case "udp":
      return `ip daddr ${to.address} udp dport ${to.udpPort}`;
    case "icmp":
      return `ip daddr ${to.address} icmp type echo-request`;
    case "all":
      return `ip daddr ${to.address}`;
  }
}
