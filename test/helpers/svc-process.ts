/**
 * Test helper: `svc controller`, `svc agent` and `svc console` as real processes (apps/cli/bin/svc.mjs) on
 * loopback ports chosen once, so a process killed with SIGKILL can be started again on the same ports. Output goes
 * to a log file in the process's directory (shown when a start fails). Processes run with SVC_EXIT_WITH_STDIN=1, so
 * nothing outlives the test process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePorts } from "@svc/lab";
import { stringify } from "yaml";

export const SVC_BIN = fileURLToPath(new URL("../../apps/cli/bin/svc.mjs", import.meta.url));

/** One svc process, restartable with the same arguments, config and ports. */
export class SvcProcess {
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  readonly logFile: string;

  constructor(
    readonly name: string,
    readonly args: readonly string[],
    readonly env: Record<string, string>,
    readonly dir: string,
    /** the `svc` command to run (another tree's apps/cli/bin/svc.mjs in the bundle test) */
    readonly bin: string = SVC_BIN,
  ) {
    mkdirSync(dir, { recursive: true });
    this.logFile = join(dir, `${name}.log`);
  }

  get pid(): number {
    return this.#child?.pid ?? 0;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Spawns the process (again). */
  spawn(): void {
    if (this.running) throw new Error(`${this.name} is running`);
    const log = createWriteStream(this.logFile, { flags: "a" });
    // the sources under test, not a bundle that may be older, unless this.env says otherwise
    const child = spawn(process.execPath, [this.bin, ...this.args], {
      env: { ...process.env, SVC_FROM_SOURCES: "1", ...this.env, SVC_EXIT_WITH_STDIN: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    // the log ends once the output is closed: output still in the pipes at the exit is written after it
    child.once("close", () => log.end());
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    this.#child = child;
  }

  /** SIGKILL; resolves when it is gone. */
  async kill(): Promise<void> {
    if (this.running) this.#child?.kill("SIGKILL");
    await this.#exited;
  }

  /** SIGTERM, SIGKILL after `graceMs`; resolves when it is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.#child?.kill("SIGTERM");
    const timer = setTimeout(() => this.#child?.kill("SIGKILL"), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  /** Polls `url` until it answers 200; fails at once when the process exits. */
  async waitOk(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited while waiting for ${url}:\n${this.log()}`);
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200) return;
      } catch {
        // not yet
      }
      if (Date.now() > deadline)
        throw new Error(`${this.name}: ${url} not 200 in ${timeoutMs} ms:\n${this.log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The tail of the log file. */
  log(): string {
    try {
      return readFileSync(this.logFile, "utf8").slice(-4000);
    } catch {
      return "";
    }
  }
}

/** A controller process with loopback agents allowed. */
export class ControllerProc extends SvcProcess {
  constructor(
    dir: string,
    readonly httpPort: number,
    readonly grpcPort: number,
    readonly metricsPort: number,
    config: Record<string, unknown>,
  ) {
    const file = join(dir, "controller.yaml");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      stringify({
        httpPort,
        grpcPort,
        metricsPort,
        logLevel: "warn",
        ...config,
        controller: { leaderElection: false, ...(config.controller as object | undefined) },
      }),
    );
    super("controller", ["controller", "--config", file, "--allow-loopback-agents"], {}, dir);
  }

  static async start(dir: string, config: Record<string, unknown> = {}): Promise<ControllerProc> {
    const [http, grpc, metrics] = await freePorts(3);
    const c = new ControllerProc(dir, http!, grpc!, metrics!, config);
    c.spawn();
    await c.ready();
    return c;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  ready(timeoutMs = 60_000): Promise<void> {
    return this.waitOk(`${this.url}/readyz`, timeoutMs);
  }

  /** Node names of the registered agents, sorted. */
  async agents(): Promise<string[]> {
    const res = await fetch(`${this.url}/api/v1/topology`, { signal: AbortSignal.timeout(3000) });
    const topo = (await res.json()) as { agents: { nodeName: string }[] };
    return topo.agents.map((a) => a.nodeName).sort();
  }
}

/** Fast checker settings for drills: tcp/udp/icmp every second, dns off the machine's resolver. */
export const FAST_CHECKERS = {
  tcp: { enabled: true, interval: "1s", timeout: "500ms" },
  udp: { enabled: true, interval: "1s", timeout: "200ms", packets: 3 },
  icmp: { enabled: false },
  dns: { enabled: false },
};

/** An agent process advertising 127.0.0.1 (`--lab-advertise`), as `svc lab --no-netns` starts them. */
export class AgentProc extends SvcProcess {
  constructor(
    dir: string,
    name: string,
    readonly httpPort: number,
    readonly metricsPort: number,
    readonly grpcPort: number,
    controllerGrpc: number,
    config: Record<string, unknown>,
  ) {
    const file = join(dir, `${name}.yaml`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      stringify({
        httpPort,
        metricsPort,
        grpcPort,
        logLevel: "warn",
        controllerAddress: `127.0.0.1:${controllerGrpc}`,
        checkers: FAST_CHECKERS,
        ...config,
      }),
    );
    super(
      name,
      ["agent", "--config", file, "--lab-advertise", "127.0.0.1"],
      { SVC_NODE_NAME: name, SVC_ZONE: "zone-a", SVC_POD_NAME: `svc-agent-${name}`, SVC_POD_IP: "127.0.0.1" },
      dir,
    );
  }

  static async start(
    dir: string,
    name: string,
    controllerGrpc: number,
    config: Record<string, unknown> = {},
  ): Promise<AgentProc> {
    const [http, metrics, grpc] = await freePorts(3);
    const a = new AgentProc(dir, name, http!, metrics!, grpc!, controllerGrpc, config);
    a.spawn();
    await a.ready();
    return a;
  }

  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  ready(timeoutMs = 60_000): Promise<void> {
    return this.waitOk(`http://127.0.0.1:${this.httpPort}/readyz`, timeoutMs);
  }
}
