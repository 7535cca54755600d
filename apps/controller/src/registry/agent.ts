/** An agent as the registry holds it. Ports are 0 when the agent did not report them. */
export interface RegisteredAgent {
  id: string;
  nodeName: string;
  address: string;
  /** Resolved zone: `external` for external agents, else the reported zone, else the node inventory's, else "". */
  zone: string;
  /** true when `zone` came from the node inventory (the agent reported none): refreshZones() may change it */
  zoneFromInventory: boolean;
  labels: Record<string, string>;
  /** Verbatim as registered; interpret with runsPlane(). */
  capabilities: string[];
  httpPort: number;
  udpPort: number;
  metricsPort: number;
  version: string;
  /** ms since epoch of the registration */
  registeredAt: number;
  /** ms since epoch of the last registration or heartbeat */
  lastSeen: number;
  /**
   * Who registered it (identity/caller.ts CallerIdentity.key: a pod uid, a gateway certificate, or a source
   * address); heartbeats, streams, re-registration and Deregister are accepted from this identity only. "" when
   * registered without one (tests driving the registry directly).
   */
  owner: string;
  /** the registering pod (Kubernetes mode): a takeover from another pod is allowed once this one is gone */
  ownerPod?: { name: string; uid: string };
}

/** A validated registration, before the registry resolves id and zone. */
export interface Registration {
  /** empty: derived from the node name */
  agentId: string;
  nodeName: string;
  address: string;
  /** empty: resolved by the registry */
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
  httpPort: number;
  udpPort: number;
  metricsPort: number;
  version: string;
}
