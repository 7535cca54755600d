/**
 * The port a check dials: the one definition every path that runs a check reads (issue 37). The console's
 * continuous fan-out (the spec's `target.port`), its schedules (the diagnostics body's `destinationPort`
 * extension), the controller's diagnostics (an external destination's `destinationPort`; a node destination's
 * reported httpPort / udpPort) and the agent (its external runner, its diagnostic tasks) all call checkPort.
 */

/**
 * Ports a check type uses on a host target given without a port: spec §2.6 "port 0 = the check type's default"
 * (continuous external checks) and §4.2 "treated as host; port is the check's default" (one-shot diagnostics to an
 * external destination). tcp 443, dns 53; icmp and mtr have no port, http takes its URL's.
 */
export const DEFAULT_CHECK_PORTS: Readonly<Record<string, number>> = { tcp: 443, dns: 53 };

/** Types that dial no port (an echo request, a trace): 0 whatever the target's address says. */
const PORTLESS: ReadonlySet<string> = new Set(["icmp", "mtr"]);

/** Where a check goes, as far as its port is concerned. */
export type PortDestination =
  /** an external target: its own port, 0 when its address named none */
  | { kind: "external"; port: number }
  /** a node: the destination agent's reported ports (0 = not reported) */
  | { kind: "node"; httpPort: number; udpPort: number };

/**
 * The port a check of `type` dials at `to`. External: 0 for icmp and mtr (they dial no port), else the target's
 * port when above 0, else the type's default (DEFAULT_CHECK_PORTS; 0 for a type without one). Node: the destination agent's httpPort for tcp and http, its
 * udpPort (the echo server) for udp and pmtu, 0 for the types without a port; 0 also when the agent reported none
 * (an agent older than 2.4.0, spec §9), and the probing agent then uses its own configured port.
 */
export function checkPort(type: string, to: PortDestination): number {
  if (to.kind === "node") {
    if (type === "tcp" || type === "http") return to.httpPort;
    if (type === "udp" || type === "pmtu") return to.udpPort;
    return 0;
  }
  if (PORTLESS.has(type)) return 0;
  return to.port > 0 ? to.port : (DEFAULT_CHECK_PORTS[type] ?? 0);
}
