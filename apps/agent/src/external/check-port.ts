/**
 * Ports a check type uses when its target is given as a host without a port (port 0): spec §2.6 "port 0 = the
 * check type's default" (continuous external checks) and §4.2 "treated as host; port is the check's default"
 * (one-shot diagnostics to an external destination). tcp 443, dns 53; icmp and mtr have no port, http takes its
 * URL's.
 */
export const DEFAULT_CHECK_PORTS: Readonly<Record<string, number>> = { tcp: 443, dns: 53 };

/**
 * The port a check of `checkType` dials on a host target: `port` when given (above 0), else the check type's
 * default (DEFAULT_CHECK_PORTS; 0 for a type without one). The one definition of "the check's default port":
 * continuous external checks (run-check.ts) and external diagnostics (tasks/execute-task.ts) both call it.
 */
export function checkPort(checkType: string, port: number): number {
  return port > 0 ? port : (DEFAULT_CHECK_PORTS[checkType] ?? 0);
}
