/**
 * Rules that span several keys or depend on another key (an enabled flag, the topology mode), and the warnings of
 * spec §8.2. They run on a schema-valid config; load.ts repairs invalid leaves first so that all errors of a file
 * are reported in one go.
 */
import { formatDuration } from "./duration.ts";
import type { CheckerBase, SvcConfig } from "./types.ts";

/** A rule violation: `path` is the key blamed, `related` other keys whose value the rule read. */
export interface RuleIssue {
  path: string;
  message: string;
  related: string[];
}

/** Outcome of the rule pass: issues are errors, warnings do not stop loading. */
export interface RuleResult {
  issues: RuleIssue[];
  warnings: string[];
}

/** Checkers that have enabled/interval/timeout, in documentation order. */
export const TIMED_CHECKERS = ["tcp", "udp", "icmp", "pmtu", "dns", "http"] as const;

const MIN_INTERVAL_MS = 100;
const MIN_TIMEOUT_MS = 1;
const PMTU_MAX_INTERVAL_MS = 180_000;
const PMTU_TIMEOUT_FACTOR = 28;

const d = formatDuration;

/**
 * Normalises `cfg` in place (any agent.tls file or serverName switches agent.tls.enabled on) and checks the
 * cross-key rules. Call only on a config the schema accepted.
 */
export function applyRules(cfg: SvcConfig): RuleResult {
  const issues: RuleIssue[] = [];
  const warnings: string[] = [];
  const issue = (path: string, message: string, ...related: string[]) =>
    issues.push({ path, message, related });

  const ports: [string, number][] = [
    ["httpPort", cfg.httpPort],
    ["metricsPort", cfg.metricsPort],
    ["grpcPort", cfg.grpcPort],
    ["controller.externalGateway.port", cfg.controller.externalGateway.port],
  ];
  ports.forEach(([key, value], i) => {
    const clash = ports.slice(0, i).find(([, v]) => v === value);
    if (clash) issue(key, `must differ from ${clash[0]} (both ${value})`, clash[0]);
  });

  for (const name of TIMED_CHECKERS) {
    const c: CheckerBase = cfg.checkers[name];
    if (!c.enabled) continue;
    const p = `checkers.${name}`;
    if (c.interval < MIN_INTERVAL_MS) {
      issue(
        `${p}.interval`,
        `must be at least 100ms when the checker is enabled, got ${d(c.interval)}`,
        `${p}.enabled`,
      );
    }
    if (c.timeout < MIN_TIMEOUT_MS) {
      issue(
        `${p}.timeout`,
        `must be at least 1ms when the checker is enabled, got ${d(c.timeout)}`,
        `${p}.enabled`,
      );
    }
    if (c.timeout >= c.interval) {
      warnings.push(`${p}.timeout: ${d(c.timeout)} is not below ${p}.interval ${d(c.interval)}`);
    }
  }

  const udp = cfg.checkers.udp;
  if (udp.enabled && udp.packets * udp.timeout >= udp.interval) {
    warnings.push(
      `checkers.udp.packets: ${udp.packets} packets x timeout ${d(udp.timeout)} is not below interval ${d(udp.interval)}`,
    );
  }
  const pmtu = cfg.checkers.pmtu;
  if (pmtu.enabled && pmtu.interval < PMTU_TIMEOUT_FACTOR * pmtu.timeout) {
    warnings.push(
      `checkers.pmtu.interval: ${d(pmtu.interval)} is below 28 x timeout (${d(PMTU_TIMEOUT_FACTOR * pmtu.timeout)}); a full probe run may not fit`,
    );
  }
  if (pmtu.enabled && pmtu.interval >= PMTU_MAX_INTERVAL_MS) {
    warnings.push(
      `checkers.pmtu.interval: ${d(pmtu.interval)} is 3m or more; MTU changes will be noticed late`,
    );
  }
  if (cfg.checkers.dns.enabled && cfg.checkers.dns.hosts.length === 0) {
    issue("checkers.dns.hosts", "must not be empty when the dns checker is enabled", "checkers.dns.enabled");
  }
  if (cfg.checkers.http.enabled && cfg.checkers.http.targets.length === 0) {
    warnings.push("checkers.http.targets: the http checker is enabled but has no targets");
  }
  const ext = cfg.checkers.external;
  if (ext.enabled && ext.allowedCidrs.length === 0) {
    issue(
      "checkers.external.allowedCidrs",
      "must not be empty when checkers.external is enabled",
      "checkers.external.enabled",
    );
  }
  const topo = cfg.topology;
  if (topo.mode === "sparse" && topo.sparse.ringDegree < 1) {
    issue(
      "topology.sparse.ringDegree",
      `must be at least 1 in sparse mode, got ${topo.sparse.ringDegree}`,
      "topology.mode",
    );
  }

  const tls = cfg.agent.tls;
  if (tls.caFile !== "" || tls.certFile !== "" || tls.keyFile !== "" || tls.serverName !== "")
    tls.enabled = true;
  pairRule(issue, "agent.tls", tls.certFile, tls.keyFile);
  if (cfg.agent.bootstrapTokenFile !== "" && !tls.enabled) {
    issue(
      "agent.bootstrapTokenFile",
      "requires TLS (set agent.tls.enabled or an agent.tls file)",
      "agent.tls",
    );
  }
  if (cfg.agent.bootstrapTokenFile !== "" && cfg.agent.identityTokenFile !== "") {
    issue(
      "agent.identityTokenFile",
      "set either identityTokenFile (in-cluster port) or bootstrapTokenFile (external gateway), not both",
      "agent.bootstrapTokenFile",
    );
  }
  const gw = cfg.controller.externalGateway.tls;
  pairRule(issue, "controller.externalGateway.tls", gw.certFile, gw.keyFile);
  if (cfg.controller.externalGateway.enabled) {
    const required: [string, string][] = [
      ["controller.externalGateway.tls.certFile", gw.certFile],
      ["controller.externalGateway.tls.keyFile", gw.keyFile],
      ["controller.externalGateway.bootstrapTokenFile", cfg.controller.externalGateway.bootstrapTokenFile],
    ];
    for (const [key, value] of required) {
      if (value === "" && !issues.some((i) => i.path === key))
        issue(
          key,
          "required when controller.externalGateway.enabled is true",
          "controller.externalGateway.enabled",
        );
    }
  }
  return { issues, warnings };
}

function pairRule(
  issue: (path: string, message: string, ...related: string[]) => void,
  prefix: string,
  certFile: string,
  keyFile: string,
): void {
  if (certFile !== "" && keyFile === "")
    issue(`${prefix}.keyFile`, `required when ${prefix}.certFile is set`, `${prefix}.certFile`);
  if (keyFile !== "" && certFile === "")
    issue(`${prefix}.certFile`, `required when ${prefix}.keyFile is set`, `${prefix}.keyFile`);
}
