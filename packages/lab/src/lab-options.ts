/** What a lab is started with, and what it reports of each node. */
import type { ManagedProcess } from "./processes.ts";

/** Options of a lab. */
export interface LabOptions {
  /** number of agents (default 3) */
  agents?: number;
  /** put each agent in its own network namespace (default: when root) */
  netns?: boolean;
  /** path of the prometheus binary; false = no Prometheus (default: /usr/bin/prometheus when it exists) */
  prometheus?: string | false;
  /**
   * the metrics backend: "prometheus" (default) or "victoria-metrics" (victoria-metrics + vmagent + vmalert from
   * Debian's `victoria-metrics` package; the console queries victoria-metrics and reads alerts from vmalert)
   */
  metrics?: "prometheus" | "victoria-metrics";
  /** Prometheus scrape interval (default 5 s) */
  scrapeIntervalSeconds?: number;
  /** rule files Prometheus loads (e.g. the console's recording rules: `svc lab` passes them) */
  prometheusRules?: readonly { name: string; yaml: string }[];
  /**
   * working directory for configs, logs and Prometheus data (default: a new `svc-lab-*` directory in the system temp
   * folder, kept after the lab stops for its logs; only the newest few such directories are kept, see lab-dirs.ts)
   */
  dir?: string;
  /**
   * remove the working directory when the lab stops (tests: what they make, they remove); a lab whose start failed
   * keeps it for its logs
   */
  removeDirOnStop?: boolean;
  /** zones assigned round-robin to the agents (default zone-a, zone-b) */
  zones?: string[];
  /** extra configuration merged into every agent's and the controller's YAML (e.g. checker intervals) */
  config?: Record<string, unknown>;
  /** start the console (PGlite store, bootstrap admin) wired to the lab's controller and Prometheus (default true) */
  console?: boolean;
  /** the console's `webhooks.alertPollInterval` (default: the console's 30s) */
  alertPollInterval?: string;
  /** progress lines (default: none) */
  log?: (line: string) => void;
}

/** A running lab node. */
export interface LabNode {
  name: string;
  zone: string;
  namespace?: string;
  address: string;
  httpPort: number;
  metricsPort: number;
  grpcPort: number;
  httpUrl: string;
  metricsUrl: string;
  process: ManagedProcess;
}
