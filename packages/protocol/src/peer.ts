/** Capability strings of spec §2.2. */
export const PLANES = ["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"] as const;
export type Plane = (typeof PLANES)[number];
export const EXTERNAL_CHECKS_CAPABILITY = "external-checks";
export const LABEL_EXTERNAL = "svc.io/external";
export const LABEL_HOST_NETWORK = "svc.io/host-network";
export const EXTERNAL_ZONE = "external";

/** A peer as an agent's probes see it (from the controller's peer list). */
export interface Peer {
  agentId: string;
  nodeName: string;
  address: string;
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
  /** TCP probe port; undefined when the peer reported none (use own configured httpPort). */
  httpPort?: number;
  /** UDP echo port; undefined when the peer reported none (use own configured grpcPort). */
  udpPort?: number;
}

/**
 * Whether an agent runs a plane. An agent with no `plane:` entry at all is older than 2.4.0 and runs every
 * plane (spec §2.2); `plane:mtr` is always present on newer agents.
 */
export function runsPlane(capabilities: readonly string[], plane: Plane): boolean {
  const planes = capabilities.filter((c) => c.startsWith("plane:"));
  if (planes.length === 0) return true;
  return planes.includes(`plane:${plane}`);
}
