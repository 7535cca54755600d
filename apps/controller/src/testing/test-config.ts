import type { SvcConfig } from "@svc/core";

/**
 * Test helper: a complete SvcConfig with the spec's defaults, except every port 0 (pick a free one) and the
 * overrides given. Built by hand, not by the config loader, so tests may use values the loader refuses
 * (e.g. a 300 ms agentTtl).
 */
export function testConfig(
  overrides: {
    agentTtl?: number;
    metricsPrefix?: string;
    eventsEnabled?: boolean;
    external?: { enabled: boolean; allowedCidrs: string[] };
    grpcPort?: number;
    trustedProxyCidrs?: string[];
  } = {},
): SvcConfig {
  const checker = (interval: number, timeout: number) => ({ enabled: true, interval, timeout });
  return {
    metricsPrefix: overrides.metricsPrefix ?? "svc",
    httpPort: 0,
    metricsPort: 0,
    grpcPort: overrides.grpcPort ?? 0,
    logLevel: "info",
    logFormat: "json",
    failureDomainLabel: "topology.kubernetes.io/zone",
    controllerAddress: "svc-controller:9090",
    agent: {
      nodeName: "node-a",
      advertiseAddress: "",
      zone: "",
      tls: { enabled: false, caFile: "", certFile: "", keyFile: "", serverName: "" },
      bootstrapTokenFile: "",
      identityTokenFile: "",
    },
    controller: {
      leaderElection: false,
      agentTtl: overrides.agentTtl ?? 30_000,
      // Tests register agents of many addresses from one loopback client: loopback stands for a trusted proxy.
      // The hostile-agent suite and the source-address tests set [] (as a real deployment has by default).
      trustedProxyCidrs: overrides.trustedProxyCidrs ?? ["127.0.0.0/8", "::1/128"],
      agentIdentity: { serviceAccount: "svc-agent", audience: "svc-controller" },
      events: { enabled: overrides.eventsEnabled ?? false },
      prometheusSD: { enabled: true },
      externalGateway: {
        enabled: false,
        port: 9443,
        tls: { certFile: "", keyFile: "", clientCaFile: "" },
        bootstrapTokenFile: "",
      },
    },
    checkers: {
      tcp: checker(5000, 1000),
      udp: { ...checker(5000, 250), packets: 5 },
      icmp: checker(5000, 1000),
      pmtu: { ...checker(60_000, 500), size: 0 },
      dns: { ...checker(5000, 2000), hosts: ["kubernetes.default.svc"], resolvers: [] },
      http: { enabled: false, interval: 30_000, timeout: 5000, targets: [] },
      mtr: { cooldown: 60_000, maxHops: 30 },
      external: {
        enabled: overrides.external?.enabled ?? false,
        allowedCidrs: overrides.external?.allowedCidrs ?? [],
        deniedCidrs: [],
        maxTargets: 100,
        timeout: 10_000,
      },
    },
    topology: { mode: "full", sparse: { ringDegree: 2, zoneChords: 2, autoThreshold: 0 } },
  };
}
