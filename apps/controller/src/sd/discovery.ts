import { type Logger, silentLogger } from "../logger.ts";
import type { RegisteredAgent } from "../registry/agent.ts";
import { isExternalAgent } from "../registry/registry.ts";

/** One Prometheus HTTP-SD target group (spec §2.7): exactly these four labels, `external` always "true". */
export interface DiscoveryGroup {
  targets: string[];
  labels: { node: string; zone: string; external: "true"; agent_id: string };
}

export interface DiscoveryListOptions {
  /** all registered agents; read on every request (AgentRegistry.list satisfies it) */
  agents: () => RegisteredAgent[];
  /** the controller's own configured `metricsPort`, captured once at startup */
  fallbackMetricsPort: number;
  logger?: Logger;
}

/** `address:port` with an IPv6 literal bracketed (any address holding a colon is IPv6). */
export function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The external-agent discovery list (spec §4.2 GET /api/v1/scrape/sd, rules 1-4): one group per external agent
 * (label `svc.io/external=true`), ordered by node name then agent id, deduplicated by target (first wins); the
 * agent's reported metricsPort, else the fallback port, the substitution logged once per agent id for the life
 * of this object. Build one per controller and share it between both listeners so the log stays once.
 */
export class DiscoveryList {
  readonly #agents: () => RegisteredAgent[];
  readonly #fallbackPort: number;
  readonly #logger: Logger;
  readonly #substituted = new Set<string>();

  constructor(opts: DiscoveryListOptions) {
    this.#agents = opts.agents;
    this.#fallbackPort = opts.fallbackMetricsPort;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** The current groups; `[]` when no external agent is registered. */
  groups(): DiscoveryGroup[] {
    const external = this.#agents()
      .filter((a) => isExternalAgent(a.labels))
      .sort((a, b) => compare(a.nodeName, b.nodeName) || compare(a.id, b.id));
    const seen = new Set<string>();
    const groups: DiscoveryGroup[] = [];
    for (const a of external) {
      const target = hostPort(a.address, this.#portOf(a));
      if (seen.has(target)) continue;
      seen.add(target);
      groups.push({
        targets: [target],
        labels: { node: a.nodeName, zone: a.zone, external: "true", agent_id: a.id },
      });
    }
    return groups;
  }

  #portOf(a: RegisteredAgent): number {
    if (a.metricsPort > 0) return a.metricsPort;
    if (!this.#substituted.has(a.id)) {
      this.#substituted.add(a.id);
      this.#logger.info(
        { agentId: a.id, nodeName: a.nodeName, metricsPort: this.#fallbackPort },
        "external agent reported no metricsPort; discovery list uses the controller's metricsPort",
      );
    }
    return this.#fallbackPort;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
