/**
 * The zod schema of the one configuration file shared by agent and controller (spec §8.2). Every mapping is
 * strict; every leaf has its default. Cross-key rules (distinct ports, enabled-checker limits, TLS pairing) live
 * in rules.ts; the reference in docs/configuration.md is generated from defaults here plus meta.ts.
 */
import type * as core from "zod/v4/core";
import {
  advertiseAddress,
  bool,
  cidr,
  duration,
  fail,
  httpUrl,
  int,
  leaf,
  list,
  oneOf,
  pattern,
  port,
  regexSource,
  resolver,
  section,
  str,
  zeroOrDuration,
  zeroOrInt,
} from "./fields.ts";

/** Log levels in increasing severity. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** Log output formats. */
export const LOG_FORMATS = ["json", "text"] as const;
/** Default `checkers.dns.hosts`: the cluster API service name. */
export const DEFAULT_DNS_HOST = "kubernetes.default.svc.cluster.local";

const SEC = 1000;
const MAXINT = Number.MAX_SAFE_INTEGER;

function checker(enabled: boolean, intervalMs: number, timeoutMs: number) {
  return {
    enabled: bool().default(enabled),
    interval: duration().default(intervalMs),
    timeout: duration().default(timeoutMs),
  };
}

const httpTarget = section({
  url: httpUrl(),
  method: pattern(/^[A-Z][A-Z0-9_-]*$/, "must be an uppercase HTTP method such as GET").default("GET"),
  expectStatus: zeroOrInt(100, 599).default(0),
  bodyPattern: regexSource().default(""),
  insecureSkipVerify: bool().default(false),
});

/**
 * Builds the schema. `hostname` is the default of `agent.nodeName` (also used when it is set to "").
 */
export function configSchema(hostname: string) {
  return section({
    metricsPrefix: pattern(
      /^[A-Za-z][A-Za-z0-9_]*$/,
      "must start with a letter, then letters, digits or underscores",
    ).default("svc"),
    httpPort: port().default(8080),
    metricsPort: port().default(9091),
    grpcPort: port().default(9090),
    logLevel: oneOf(LOG_LEVELS, true).default("info"),
    logFormat: oneOf(LOG_FORMATS).default("json"),
    failureDomainLabel: str(true).default("topology.kubernetes.io/zone"),
    controllerAddress: str(true).default("svc-controller:9090"),
    agent: section({
      nodeName: leaf<string>((v) =>
        typeof v !== "string" ? fail("must be a string", v) : v || hostname,
      ).default(hostname),
      advertiseAddress: advertiseAddress().default(""),
      zone: str().default(""),
      tls: section({
        enabled: bool().default(false),
        caFile: str().default(""),
        certFile: str().default(""),
        keyFile: str().default(""),
        serverName: str().default(""),
      }),
      bootstrapTokenFile: str().default(""),
      identityTokenFile: str().default(""),
    }),
    controller: section({
      leaderElection: bool().default(true),
      agentTtl: duration(10 * SEC, "must be at least 10s").default(30 * SEC),
      trustedProxyCidrs: list(cidr()).default([]),
      agentIdentity: section({
        serviceAccount: str(true).default("svc-agent"),
        audience: str(true).default("svc-controller"),
      }),
      events: section({ enabled: bool().default(false) }),
      prometheusSD: section({ enabled: bool().default(true) }),
      externalGateway: section({
        enabled: bool().default(false),
        port: port().default(9443),
        tls: section({
          certFile: str().default(""),
          keyFile: str().default(""),
          clientCaFile: str().default(""),
        }),
        bootstrapTokenFile: str().default(""),
      }),
    }),
    checkers: section({
      tcp: section(checker(true, 5 * SEC, 1 * SEC)),
      udp: section({ ...checker(true, 5 * SEC, 250), packets: int(1, 100).default(5) }),
      icmp: section(checker(true, 5 * SEC, 1 * SEC)),
      pmtu: section({
        ...checker(true, 60 * SEC, 500),
        size: zeroOrInt(576, 65535).default(0),
      }),
      dns: section({
        ...checker(true, 5 * SEC, 2 * SEC),
        hosts: list(str(true)).default([DEFAULT_DNS_HOST]),
        resolvers: list(resolver()).default([]),
      }),
      http: section({ ...checker(false, 30 * SEC, 5 * SEC), targets: list(httpTarget).default([]) }),
      mtr: section({
        cooldown: duration(0.000001, "must be above zero").default(60 * SEC),
        maxHops: int(1, 64).default(30),
      }),
      external: section({
        enabled: bool().default(false),
        allowedCidrs: list(cidr()).default([]),
        deniedCidrs: list(cidr()).default([]),
        maxTargets: int(1, MAXINT, "must be at least 1").default(100),
        timeout: zeroOrDuration().default(10 * SEC),
      }),
    }),
    topology: section({
      mode: oneOf(["full", "sparse"] as const).default("full"),
      sparse: section({
        ringDegree: int(0, MAXINT, "must be a whole number, at least 1 in sparse mode").default(2),
        zoneChords: int(0, 64).default(2),
        autoThreshold: int(0, MAXINT, "must not be negative").default(0),
      }),
    }),
  });
}

/** The schema's output type; load.ts assigns it to SvcConfig, so the two cannot drift apart. */
export type SchemaOutput = core.output<ReturnType<typeof configSchema>>;
