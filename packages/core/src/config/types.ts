/**
 * The parsed, validated configuration shared by agent and controller (spec §8.2). One file format serves both
 * binaries (a Helm chart renders one file); each binary reads its part. Durations are milliseconds.
 * The loaded object is deeply frozen.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "text";

export interface CheckerBase {
  enabled: boolean;
  /** ms */
  interval: number;
  /** ms */
  timeout: number;
}
export interface UdpChecker extends CheckerBase {
  packets: number;
}
export interface PmtuChecker extends CheckerBase {
  /** 0 = derive from the egress interface MTU; else 576-65535 */
  size: number;
}
export interface DnsChecker extends CheckerBase {
  hosts: string[];
  /** "ip" or "ip:port" / "[v6]:port"; empty = system resolver */
  resolvers: string[];
}
export interface HttpTarget {
  url: string;
  method: string;
  /** 0 = any 2xx/3xx */
  expectStatus: number;
  /** regular expression source; empty = no body check */
  bodyPattern: string;
  insecureSkipVerify: boolean;
}
export interface HttpChecker extends CheckerBase {
  targets: HttpTarget[];
}
export interface MtrChecker {
  /** ms */
  cooldown: number;
  maxHops: number;
}
export interface ExternalChecker {
  enabled: boolean;
  allowedCidrs: string[];
  deniedCidrs: string[];
  maxTargets: number;
  /** ms; 0 = use each spec's own timeout */
  timeout: number;
}
export interface Checkers {
  tcp: CheckerBase;
  udp: UdpChecker;
  icmp: CheckerBase;
  pmtu: PmtuChecker;
  dns: DnsChecker;
  http: HttpChecker;
  mtr: MtrChecker;
  external: ExternalChecker;
}
export interface TlsFiles {
  enabled: boolean;
  caFile: string;
  certFile: string;
  keyFile: string;
  serverName: string;
}
export interface AgentSection {
  /** default: os.hostname() (or SVC_NODE_NAME) */
  nodeName: string;
  /** IP literal; empty = SVC_POD_IP, else autodetect */
  advertiseAddress: string;
  /** empty = controller resolves */
  zone: string;
  tls: TlsFiles;
  bootstrapTokenFile: string;
  /** projected ServiceAccount token file sent to the controller's main listener; empty: none */
  identityTokenFile: string;
}
export interface ControllerSection {
  leaderElection: boolean;
  /** ms, >= 10000 */
  agentTtl: number;
  /** peers that may advertise another address than the connection's (outside Kubernetes) */
  trustedProxyCidrs: string[];
  /** Kubernetes mode: the agents' ServiceAccount (in the controller's namespace) and their tokens' audience */
  agentIdentity: { serviceAccount: string; audience: string };
  events: { enabled: boolean };
  prometheusSD: { enabled: boolean };
  externalGateway: {
    enabled: boolean;
    port: number;
    tls: { certFile: string; keyFile: string; clientCaFile: string };
    bootstrapTokenFile: string;
  };
}
export interface TopologySection {
  mode: "full" | "sparse";
  sparse: { ringDegree: number; zoneChords: number; autoThreshold: number };
}
export interface SvcConfig {
  metricsPrefix: string;
  httpPort: number;
  metricsPort: number;
  grpcPort: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  failureDomainLabel: string;
  /** host:port of the controller's gRPC listener (agent only); default "svc-controller:9090" */
  controllerAddress: string;
  agent: AgentSection;
  controller: ControllerSection;
  checkers: Checkers;
  topology: TopologySection;
}
