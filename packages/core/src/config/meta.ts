/**
 * Description and rule text per leaf key, the source of docs/configuration.md together with the schema's
 * defaults (doc.ts). A test checks that this table and the schema list exactly the same keys.
 */

/** Documentation of one leaf key. `duration` marks millisecond values written as Go durations. */
export interface KeyDoc {
  description: string;
  rule?: string;
  duration?: boolean;
  /** shown instead of the computed default (e.g. the hostname) */
  defaultText?: string;
}

const checker = (name: string, what: string): Record<string, KeyDoc> => ({
  [`checkers.${name}.enabled`]: { description: `Run the ${what} checker (plane \`${name}\`).` },
  [`checkers.${name}.interval`]: {
    description: "Time between probe rounds.",
    rule: "at least 100ms when enabled; a timeout not below the interval only warns",
    duration: true,
  },
  [`checkers.${name}.timeout`]: {
    description: "Per-probe timeout.",
    rule: "at least 1ms when enabled",
    duration: true,
  },
});

/** Leaf key path -> documentation. */
export const KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  metricsPrefix: {
    description: "Prefix of every metric name (`<prefix>_...`).",
    rule: "a letter, then letters, digits or underscores",
  },
  httpPort: {
    description: "HTTP API listener (also serves `/metrics` for backward compatibility).",
    rule: "1-65535, distinct from the other ports",
  },
  metricsPort: {
    description:
      "`/metrics`, `/healthz`, `/readyz`; on the controller also the external-agent discovery list.",
    rule: "1-65535, distinct from the other ports",
  },
  grpcPort: {
    description: "Agent-controller gRPC; on agents also the UDP echo server used by udp and pmtu probes.",
    rule: "1-65535, distinct from the other ports",
  },
  logLevel: {
    description: "Minimum level logged.",
    rule: "debug, info, warn or error, any case (normalised to lower case)",
  },
  logFormat: {
    description: "`json` (one JSON object per line) or `text` (one readable line per record), on stdout.",
    rule: "json or text",
  },
  failureDomainLabel: {
    description: "Node label whose value is a node's zone (failure domain).",
    rule: "not empty",
  },
  controllerAddress: {
    description: "host:port of the controller's gRPC listener (agent only).",
    rule: "not empty",
  },
  "agent.nodeName": {
    description: "Name this agent registers under.",
    defaultText: "the hostname",
    rule: '"" means the hostname',
  },
  "agent.advertiseAddress": {
    description:
      "Address peers probe. Empty: the agent uses the injected pod IP (`SVC_POD_IP`), else autodetects.",
    rule: "an IP literal; unspecified, loopback, multicast and broadcast addresses are refused",
  },
  "agent.zone": {
    description: "Zone reported at registration. Empty: the controller resolves it from the node label.",
  },
  "agent.tls.enabled": {
    description:
      "Dial the controller with TLS. Implied (set to true) when any of `caFile`, `certFile`, `keyFile`, `serverName` is set.",
  },
  "agent.tls.caFile": { description: "CA bundle to verify the controller (PEM). Empty: system roots." },
  "agent.tls.certFile": { description: "Client certificate (PEM).", rule: "set together with keyFile" },
  "agent.tls.keyFile": { description: "Client key (PEM).", rule: "set together with certFile" },
  "agent.tls.serverName": {
    description: "TLS server name to verify instead of the host of controllerAddress.",
  },
  "agent.bootstrapTokenFile": {
    description: "File holding the bearer token for the external gateway.",
    rule: "refused unless TLS is on",
  },
  "agent.identityTokenFile": {
    description:
      "File holding a projected ServiceAccount token (audience `controller.agentIdentity.audience`), sent as `authorization: Bearer` with every call to the controller's in-cluster port. Read again for every Register and stream, so the kubelet's rotation is followed. The chart sets it; outside Kubernetes leave it empty.",
    rule: "not together with bootstrapTokenFile",
  },
  "controller.leaderElection": {
    description: "Elect a leader among controller replicas (Kubernetes Lease).",
  },
  "controller.agentTtl": {
    description: "How long an agent stays registered without being heard from.",
    rule: "at least 10s",
    duration: true,
  },
  "controller.trustedProxyCidrs": {
    description:
      "Outside Kubernetes an agent must advertise the address its connection comes from; a connection from these networks (a NAT or proxy between agents and controller) may advertise another.",
    rule: "each a CIDR with a prefix length",
  },
  "controller.agentIdentity.serviceAccount": {
    description:
      "Kubernetes mode: the agents' ServiceAccount, in the controller's namespace. A registration whose token reviews as another account is refused.",
  },
  "controller.agentIdentity.audience": {
    description:
      "Kubernetes mode: the audience the agents' projected tokens are minted for; the controller's TokenReview asks for it.",
  },
  "controller.events.enabled": { description: "Publish the controller's domain event stream." },
  "controller.prometheusSD.enabled": {
    description:
      "Serve the external-agent discovery list. Controllers older than 2.4.0 reject this key, so write it only when false.",
    rule: "only `enabled` is accepted under prometheusSD",
  },
  "controller.externalGateway.enabled": {
    description: "Open the gRPC gateway (TLS plus bearer token) for external agents.",
  },
  "controller.externalGateway.port": {
    description: "Gateway listener port.",
    rule: "1-65535, distinct from the other ports",
  },
  "controller.externalGateway.tls.certFile": {
    description: "Gateway server certificate (PEM).",
    rule: "set together with keyFile",
  },
  "controller.externalGateway.tls.keyFile": {
    description: "Gateway server key (PEM).",
    rule: "set together with certFile",
  },
  "controller.externalGateway.tls.clientCaFile": { description: "CA bundle for client certificates (PEM)." },
  "controller.externalGateway.bootstrapTokenFile": {
    description: "File holding the bearer token external agents must present.",
  },
  ...checker("tcp", "TCP connect"),
  ...checker("udp", "UDP echo"),
  "checkers.udp.packets": {
    description: "Datagrams per probe round.",
    rule: "1-100; packets x timeout not below interval warns",
  },
  ...checker("icmp", "ICMP echo"),
  ...checker("pmtu", "path MTU"),
  "checkers.pmtu.size": {
    description:
      "Largest size probed. 0: derived from the egress interface MTU. Agents older than 2.5.0 refuse the `checkers.pmtu` key: omit it while such agents remain.",
    rule: "0 or 576-65535; interval below 28 x timeout, or 3m and above, warns",
  },
  ...checker("dns", "DNS"),
  "checkers.dns.hosts": { description: "Names resolved each round.", rule: "not empty when enabled" },
  "checkers.dns.resolvers": {
    description:
      "Resolvers to query (`ip`, `ip:port`, `[v6]:port`); explicit resolvers get absolute names. Empty: the system resolver.",
    rule: "port 1-65535",
  },
  ...checker("http", "HTTP"),
  "checkers.http.targets": {
    description:
      "Targets, each `{url, method, expectStatus, bodyPattern, insecureSkipVerify}`: `url` absolute http(s) (required); `method` uppercase (default GET); `expectStatus` 0 (any 2xx/3xx) or 100-599 (default 0); `bodyPattern` a regular expression the body must match (default empty = no check); `insecureSkipVerify` (default false).",
    rule: "bodyPattern must compile; unknown target keys fail",
  },
  "checkers.mtr.cooldown": {
    description: "Minimum time between two traces of the same path.",
    rule: "above zero",
    duration: true,
  },
  "checkers.mtr.maxHops": { description: "Maximum TTL traced.", rule: "1-64" },
  "checkers.external.enabled": { description: "Accept continuous external-check assignments." },
  "checkers.external.allowedCidrs": {
    description: "Destinations external checks may target.",
    rule: "CIDRs with a prefix length; not empty when enabled",
  },
  "checkers.external.deniedCidrs": {
    description: "Destinations refused even when allowed.",
    rule: "CIDRs with a prefix length",
  },
  "checkers.external.maxTargets": { description: "Most external targets accepted.", rule: "at least 1" },
  "checkers.external.timeout": {
    description: "Timeout of external checks. 0: each spec's own timeout.",
    rule: "0 or at least 1ms",
    duration: true,
  },
  "topology.mode": {
    description: "Probe plan: `full` mesh or `sparse`. Needs controller and agents at 2.3.0+ for sparse.",
    rule: "full or sparse",
  },
  "topology.sparse.ringDegree": {
    description: "Ring neighbours per node in sparse mode.",
    rule: "at least 1 in sparse mode",
  },
  "topology.sparse.zoneChords": { description: "Cross-zone chords per node in sparse mode.", rule: "0-64" },
  "topology.sparse.autoThreshold": {
    description: "Fleets smaller than this stay on full mesh (0: always sparse when mode is sparse).",
    rule: "not negative",
  },
};
