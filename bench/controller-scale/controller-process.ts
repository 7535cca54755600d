/**
 * The controller under test as its own process: `svc controller --config FILE --allow-loopback-agents` on free
 * loopback ports; the config file can be rewritten and reloaded (SIGHUP) to switch `topology.*` live.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { MemoryCgroup } from "../lib/cgroup.ts";
import { cpuMs, rss } from "../lib/proc.ts";

/** The controller's cgroup memory limit here: high enough not to bind (the bench measures, the chart limits). */
const CGROUP_LIMIT = 4 * 2 ** 30;

const SVC_BIN = new URL("../../apps/cli/bin/svc.mjs", import.meta.url).pathname;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  return typeof addr === "object" && addr ? addr.port : 0;
}

export type Topology = { mode: "full" | "sparse"; sparse?: { ringDegree: number; zoneChords: number } };

/** Settings of the controller under test beyond the topology. */
export interface ControllerSettings {
  /** `controller.events.enabled` (default false) */
  events?: boolean;
}

export class ControllerProcess {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly #metricsPort: number;
  readonly #dir: string;
  readonly #file: string;
  readonly #child: ChildProcess;
  readonly #settings: ControllerSettings;
  /** the controller's own memory cgroup (undefined without root: RSS only) */
  readonly cgroup: MemoryCgroup | undefined;

  private constructor(
    ports: [number, number, number],
    topology: Topology,
    nodeArgs: readonly string[],
    settings: ControllerSettings,
  ) {
    [this.httpPort, this.grpcPort, this.#metricsPort] = ports;
    this.#settings = settings;
    this.#dir = mkdtempSync(join(tmpdir(), "svc-bench-ctl-"));
    this.#file = join(this.#dir, "controller.yaml");
    this.writeConfig(topology);
    // in a memory cgroup of its own from its first page (as root): the working set Kubernetes sees
    const cg = MemoryCgroup.open(`controller-${ports[0]}`, CGROUP_LIMIT);
    if (typeof cg === "string") process.stderr.write(`controller-scale: no cgroup (${cg}); RSS only\n`);
    else this.cgroup = cg;
    const args = [...nodeArgs, SVC_BIN, "controller", "--config", this.#file, "--allow-loopback-agents"];
    const options = {
      env: { ...process.env, SVC_EXIT_WITH_STDIN: "1" },
      stdio: ["pipe", "inherit", "inherit"] as ("pipe" | "inherit")[],
    };
    this.#child = this.cgroup
      ? this.cgroup.spawn(process.execPath, args, options)
      : spawn(process.execPath, args, options);
  }

  /** Working set of the controller's cgroup (usage minus inactive file pages), bytes; NaN without a cgroup. */
  workingSet(): number {
    return this.cgroup?.memory().workingSet ?? Number.NaN;
  }

  /** Starts the controller (`nodeArgs`: flags for its node, e.g. a heap cap) and waits until its API answers. */
  static async start(
    topology: Topology,
    nodeArgs: readonly string[] = [],
    settings: ControllerSettings = {},
  ): Promise<ControllerProcess> {
    const ports: [number, number, number] = [await freePort(), await freePort(), await freePort()];
    const c = new ControllerProcess(ports, topology, nodeArgs, settings);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/topology`)).ok) return c;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline || c.#child.exitCode !== null) throw new Error("controller did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** CPU time (user + system) so far, ms. */
  cpuMs(): number {
    return cpuMs(this.pid);
  }

  /** RSS now and peak, bytes. */
  rss(): { now: number; peak: number } {
    return rss(this.pid);
  }

  /** Rewrites the config file (not reloaded until `reload`). */
  writeConfig(topology: Topology): void {
    writeFileSync(
      this.#file,
      stringify({
        httpPort: this.httpPort,
        grpcPort: this.grpcPort,
        metricsPort: this.#metricsPort,
        logLevel: "warn",
        controller: {
          leaderElection: false,
          agentTtl: "60s",
          events: { enabled: this.#settings.events ?? false },
        },
        topology: { mode: topology.mode, sparse: { autoThreshold: 0, ...topology.sparse } },
      }),
    );
  }

  /** Rewrites the config and asks the controller to reload it (SIGHUP). */
  reload(topology: Topology): void {
    this.writeConfig(topology);
    this.#child.kill("SIGHUP");
  }

  /** Stops the controller (SIGTERM, then SIGKILL after 10 s) and removes the config. */
  async stop(): Promise<void> {
    const exited = new Promise((r) => this.#child.once("exit", r));
    if (this.#child.exitCode === null) this.#child.kill("SIGTERM");
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    await this.cgroup?.remove();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
