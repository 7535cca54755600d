/**
 * The lab's metrics on VictoriaMetrics (issue 35; `svc lab --metrics victoria-metrics`): the single-node
 * `victoria-metrics` stores and answers the Prometheus query API, `vmagent` scrapes what the lab's Prometheus would
 * (the same scrape configuration, remote-written to it), and `vmalert` evaluates the recording rules and the
 * console's alert rule directory (`<ruleDirectory>/*.yml`, reloaded through POST /-/reload as Prometheus is),
 * writing recorded series and alert state back through remote write. vmalert needs somewhere to send firing alerts:
 * the lab answers as a notifier that accepts and drops them (the console reads alerts from vmalert's
 * /api/v1/alerts, not from a notifier).
 *
 * Query endpoint: the victoria-metrics URL; rule evaluator: the vmalert URL (the console's `prometheus.url` and
 * `alerts.evaluatorUrl`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { freePorts } from "./ports.ts";
import { httpOk, type ManagedProcess, startProcess, stopProcess, waitFor } from "./processes.ts";
import { prometheusConfig, type ScrapeDiscovery, type ScrapeTarget } from "./prometheus.ts";

/** Where Debian's `victoria-metrics` package installs the three binaries. */
export const VICTORIA_METRICS_BINARIES = {
  storage: "/usr/bin/victoria-metrics",
  agent: "/usr/bin/vmagent",
  alert: "/usr/bin/vmalert",
} as const;

/** True when the three binaries are installed. */
export function victoriaMetricsInstalled(bins = VICTORIA_METRICS_BINARIES): boolean {
  return existsSync(bins.storage) && existsSync(bins.agent) && existsSync(bins.alert);
}

/** A running VictoriaMetrics stack. */
export interface VictoriaMetricsStack {
  /** the query endpoint (Prometheus query API) */
  queryUrl: string;
  /** vmalert: rules, alerts, reload */
  evaluatorUrl: string;
  /** vmagent's own endpoint (targets, health) */
  agentUrl: string;
  processes: ManagedProcess[];
  /** stops the three processes and the notifier */
  stop(): Promise<void>;
}

/** Options of startVictoriaMetrics. */
export interface VictoriaMetricsOptions {
  dir: string;
  targets: readonly ScrapeTarget[];
  discovery?: readonly ScrapeDiscovery[];
  intervalSeconds: number;
  /** recording/alerting rule files (YAML text), written under `dir` and given to vmalert */
  rules?: readonly { name: string; yaml: string }[];
  /** a directory whose `*.yml` files vmalert also loads (created when missing; the console writes there) */
  ruleDirectory?: string;
  signal?: AbortSignal;
  /** vmagent's largest scrape answer (default vmagent's 16 MiB; a synthetic fleet in one target needs more) */
  maxScrapeBytes?: number;
  bins?: { storage: string; agent: string; alert: string };
}

/** A notifier that accepts vmalert's alert posts and drops them. */
async function startNotifier(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(req.method === "POST" ? 200 : 405);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("notifier: no address");
  return { url: `http://127.0.0.1:${addr.port}`, server };
}

/**
 * Starts victoria-metrics, vmagent and vmalert on loopback ports with their data under `dir`; waits until each
 * answers /health. On failure everything started is stopped before the error is thrown.
 */
export async function startVictoriaMetrics(o: VictoriaMetricsOptions): Promise<VictoriaMetricsStack> {
  const bins = o.bins ?? VICTORIA_METRICS_BINARIES;
  const [vmPort, agentPort, alertPort] = (await freePorts(3)) as [number, number, number];
  const queryUrl = `http://127.0.0.1:${vmPort}`;
  const agentUrl = `http://127.0.0.1:${agentPort}`;
  const evaluatorUrl = `http://127.0.0.1:${alertPort}`;
  const processes: ManagedProcess[] = [];
  const notifier = await startNotifier();
  const stop = async () => {
    for (const p of [...processes].reverse()) await stopProcess(p);
    await new Promise<void>((resolve) => notifier.server.close(() => resolve()));
  };
  try {
    processes.push(
      startProcess(
        "victoria-metrics",
        bins.storage,
        [
          `-httpListenAddr=127.0.0.1:${vmPort}`,
          `-storageDataPath=${join(o.dir, "victoria-metrics-data")}`,
          "-retentionPeriod=1d",
          // answer with the newest samples: the default hides the last 30 s from queries (a red cell would wait)
          "-search.latencyOffset=0s",
          // the console's fleet-wide reads and the window group select every pair's result counters (2 series a
          // pair: ~500,000 at 500 nodes in full mesh); the default limit of 300,000 refuses them (docs/operations.md)
          "-search.maxUniqueTimeseries=10000000",
        ],
        { logFile: join(o.dir, "victoria-metrics.log") },
      ),
    );
    await waitFor(
      "victoria-metrics /health",
      () => httpOk(`${queryUrl}/health`),
      30_000,
      processes[0],
      o.signal,
    );

    const scrapeFile = join(o.dir, "vmagent.yml");
    writeFileSync(scrapeFile, prometheusConfig(o.targets, o.intervalSeconds, [], o.discovery ?? []));
    processes.push(
      startProcess(
        "vmagent",
        bins.agent,
        [
          `-httpListenAddr=127.0.0.1:${agentPort}`,
          `-promscrape.config=${scrapeFile}`,
          `-remoteWrite.url=${queryUrl}/api/v1/write`,
          `-remoteWrite.tmpDataPath=${join(o.dir, "vmagent-data")}`,
          // discovery lists read as often as Prometheus's default refresh_interval (vmagent has no such key)
          "-promscrape.httpSDCheckInterval=60s",
          ...(o.maxScrapeBytes ? [`-promscrape.maxScrapeSize=${o.maxScrapeBytes}`] : []),
        ],
        { logFile: join(o.dir, "vmagent.log") },
      ),
    );
    await waitFor("vmagent /health", () => httpOk(`${agentUrl}/health`), 30_000, processes[1], o.signal);

    const ruleArgs = (o.rules ?? []).map((r) => {
      const file = join(o.dir, r.name);
      writeFileSync(file, r.yaml);
      return `-rule=${file}`;
    });
    if (o.ruleDirectory !== undefined) {
      mkdirSync(o.ruleDirectory, { recursive: true });
      ruleArgs.push(`-rule=${join(o.ruleDirectory, "*.yml")}`);
    }
    processes.push(
      startProcess(
        "vmalert",
        bins.alert,
        [
          `-httpListenAddr=127.0.0.1:${alertPort}`,
          ...ruleArgs,
          `-datasource.url=${queryUrl}`,
          `-remoteWrite.url=${queryUrl}`,
          `-remoteRead.url=${queryUrl}`,
          `-notifier.url=${notifier.url}`,
          `-evaluationInterval=${o.intervalSeconds}s`,
          `-external.url=${evaluatorUrl}`,
        ],
        { logFile: join(o.dir, "vmalert.log") },
      ),
    );
    await waitFor("vmalert /health", () => httpOk(`${evaluatorUrl}/health`), 30_000, processes[2], o.signal);
  } catch (err) {
    await stop();
    throw err;
  }
  return { queryUrl, evaluatorUrl, agentUrl, processes, stop };
}
