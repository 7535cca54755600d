/**
 * The lab's metrics backend: Prometheus (the default) or VictoriaMetrics (vmagent + vmalert), started from the same
 * options: the lab's scrape targets (controller, console, agents), the controller's discovery list of external
 * agents, the scrape interval, the recording rules and the console's rule directory.
 */
import { type ManagedProcess, stopProcess } from "./processes.ts";
import { type ScrapeDiscovery, type ScrapeTarget, startPrometheus } from "./prometheus.ts";
import { startVictoriaMetrics } from "./victoria-metrics.ts";

/** A running backend. */
export interface LabMetrics {
  /** the Prometheus query API */
  queryUrl: string;
  /** where rules are evaluated when that is not queryUrl (vmalert) */
  evaluatorUrl?: string;
  /** what the lab prints about it */
  line: string;
  stop(): Promise<void>;
}

/** What the lab scrapes: the controller, the console (when it runs) and every agent, labelled with its node. */
export function labScrapeTargets(
  controllerMetricsPort: number,
  consoleMetricsPort: number | undefined,
  nodes: readonly { name: string; metricsUrl: string }[],
): ScrapeTarget[] {
  return [
    { job: "svc-controller", targets: [`127.0.0.1:${controllerMetricsPort}`] },
    ...(consoleMetricsPort === undefined
      ? []
      : [{ job: "svc-console", targets: [`127.0.0.1:${consoleMetricsPort}`] }]),
    ...nodes.map((n) => ({
      job: "svc-agent",
      targets: [new URL(n.metricsUrl).host],
      labels: { node: n.name },
    })),
  ];
}

/** Options of either backend. */
export interface LabMetricsOptions {
  /** VictoriaMetrics, or the Prometheus binary (false: none is started) */
  backend: "victoria-metrics" | { prometheus: string | false; port: number };
  dir: string;
  targets: readonly ScrapeTarget[];
  discovery: readonly ScrapeDiscovery[];
  intervalSeconds: number;
  rules: readonly { name: string; yaml: string }[];
  ruleDirectory: string;
  signal: AbortSignal;
}

/** Starts the backend and waits until it is ready; undefined when no Prometheus binary was given. */
export async function startLabMetrics(o: LabMetricsOptions): Promise<LabMetrics | undefined> {
  const { backend, ...common } = o;
  if (backend === "victoria-metrics") {
    const vm = await startVictoriaMetrics(common);
    return {
      queryUrl: vm.queryUrl,
      evaluatorUrl: vm.evaluatorUrl,
      line: `victoria-metrics: ${vm.queryUrl} (query)  vmalert: ${vm.evaluatorUrl}  vmagent: ${vm.agentUrl}`,
      stop: () => vm.stop(),
    };
  }
  if (!backend.prometheus) return undefined;
  const started: { process: ManagedProcess; url: string } = await startPrometheus({
    ...common,
    binary: backend.prometheus,
    port: backend.port,
  });
  return {
    queryUrl: started.url,
    line: `prometheus: ${started.url}`,
    stop: () => stopProcess(started.process),
  };
}
