import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { httpOk, type ManagedProcess, startProcess, stopProcess, waitFor } from "./processes.ts";

/** A scrape job of the lab's Prometheus (or vmagent). */
export interface ScrapeTarget {
  job: string;
  targets: string[];
  labels?: Record<string, string>;
}

/** A scrape job whose targets come from an HTTP service discovery endpoint (the controller's external agents). */
export interface ScrapeDiscovery {
  job: string;
  /** the discovery URL (GET, a JSON array of target groups) */
  url: string;
}

/**
 * The prometheus.yml the lab writes: every target scraped every `intervalSeconds`; `ruleFiles` loaded (none for
 * vmagent, which scrapes only: vmalert evaluates the rules); `discovery` jobs through http_sd_configs.
 */
export function prometheusConfig(
  targets: readonly ScrapeTarget[],
  intervalSeconds: number,
  ruleFiles: readonly string[] = [],
  discovery: readonly ScrapeDiscovery[] = [],
): string {
  const lines = ["global:", `  scrape_interval: ${intervalSeconds}s`];
  if (ruleFiles.length > 0)
    lines.push(
      `  evaluation_interval: ${intervalSeconds}s`,
      "rule_files:",
      ...ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
    );
  lines.push("scrape_configs:");
  for (const d of discovery)
    lines.push(
      `  - job_name: ${JSON.stringify(d.job)}`,
      "    http_sd_configs:",
      `      - url: ${JSON.stringify(d.url)}`,
    );
  const jobs = new Map<string, ScrapeTarget[]>();
  for (const t of targets) jobs.set(t.job, [...(jobs.get(t.job) ?? []), t]);
  for (const [job, groups] of jobs) {
    lines.push(`  - job_name: ${JSON.stringify(job)}`, "    static_configs:");
    for (const t of groups) {
      lines.push("      - targets:");
      for (const target of t.targets) lines.push(`          - ${JSON.stringify(target)}`);
      if (t.labels && Object.keys(t.labels).length > 0) {
        lines.push("        labels:");
        for (const [k, v] of Object.entries(t.labels)) lines.push(`          ${k}: ${JSON.stringify(v)}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Starts the real `prometheus` binary on 127.0.0.1:`port` with storage under `dir`; waits until ready. */
export async function startPrometheus(opts: {
  binary: string;
  dir: string;
  port: number;
  targets: readonly ScrapeTarget[];
  /** jobs whose targets come from HTTP service discovery */
  discovery?: readonly ScrapeDiscovery[];
  intervalSeconds: number;
  /** recording/alerting rule files (YAML text), written under `dir` and loaded */
  rules?: readonly { name: string; yaml: string }[];
  /**
   * a directory whose `*.yml` rule files Prometheus also loads (created when missing): the console writes its
   * alert rules there and reloads Prometheus through POST /-/reload (--web.enable-lifecycle)
   */
  ruleDirectory?: string;
  /** aborts the wait for readiness (the process is stopped) */
  signal?: AbortSignal;
}): Promise<{ process: ManagedProcess; url: string }> {
  const configFile = join(opts.dir, "prometheus.yml");
  const ruleFiles = (opts.rules ?? []).map((r) => {
    const file = join(opts.dir, r.name);
    writeFileSync(file, r.yaml);
    return file;
  });
  if (opts.ruleDirectory !== undefined) {
    mkdirSync(opts.ruleDirectory, { recursive: true });
    ruleFiles.push(join(opts.ruleDirectory, "*.yml"));
  }
  writeFileSync(configFile, prometheusConfig(opts.targets, opts.intervalSeconds, ruleFiles, opts.discovery));
  const url = `http://127.0.0.1:${opts.port}`;
  const proc = startProcess(
    "prometheus",
    opts.binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(opts.dir, "prometheus-data")}`,
      `--web.listen-address=127.0.0.1:${opts.port}`,
      "--web.enable-lifecycle",
    ],
    { logFile: join(opts.dir, "prometheus.log") },
  );
  try {
    await waitFor("prometheus /-/ready", () => httpOk(`${url}/-/ready`), 30_000, proc, opts.signal);
  } catch (err) {
    await stopProcess(proc);
    throw err;
  }
  return { process: proc, url };
}

/** One series of an instant query result. */
export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

/** Runs an instant PromQL query against the Prometheus HTTP API. */
export async function promQuery(baseUrl: string, query: string): Promise<PromSample[]> {
  const res = await fetch(`${baseUrl}/api/v1/query?query=${encodeURIComponent(query)}`, {
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  if (body.status !== "success" || !body.data)
    throw new Error(`PromQL ${query}: ${body.error ?? res.status}`);
  return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
}
