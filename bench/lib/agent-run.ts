/**
 * A real `svc agent` (the bundle, apps/agent/dist/agent.mjs, as nodes run it) in a memory cgroup of its own,
 * probing N simulated peers on loopback; shared by bench/agent-footprint and bench/peers.
 *
 * Targets: addresses 127.1.x.y (all of 127/8 is loopback here), one TCP listener and one UDP echo socket on
 * 0.0.0.0 answering for all of them, the kernel answering icmp. Each agent gets a controller of its own in this
 * process with the N targets registered as peers; only the agent's cgroup is measured.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import { stringify } from "yaml";
import { type CgroupMemory, MemoryCgroup } from "./cgroup.ts";
import { rss } from "./proc.ts";

export const AGENT_BUNDLE = new URL("../../apps/agent/dist/agent.mjs", import.meta.url).pathname;
/** The chart's memory limit for the agent (spec §8.3). */
export const AGENT_CGROUP_LIMIT = 128 * 2 ** 20;

/** Builds the agent bundle from the current sources (what nodes run). */
export function buildAgentBundle(): void {
  execFileSync(process.execPath, [new URL("../../scripts/build.mjs", import.meta.url).pathname], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** The i-th target's address: 127.1.0.1 ... (250 per /24). */
export function targetAddress(i: number): string {
  return `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

export interface Targets {
  addresses: string[];
  tcpPort: number;
  udpPort: number;
  close(): void;
}

/** N loopback targets: a TCP listener (accepts, closes on the peer's close) and a UDP echo answer for all. */
export async function openTargets(n: number): Promise<Targets> {
  const srv = createServer((sock) => {
    sock.on("error", () => {});
    sock.on("end", () => sock.end());
  });
  await new Promise<void>((r) => srv.listen({ port: 0, host: "0.0.0.0", backlog: 4096 }, r));
  const tcpAddr = srv.address();
  const udp = createSocket("udp4");
  udp.on("message", (msg, rinfo) => udp.send(msg, rinfo.port, rinfo.address));
  await new Promise<void>((r) => udp.bind(0, "0.0.0.0", r));
  return {
    addresses: Array.from({ length: n }, (_, i) => targetAddress(i)),
    tcpPort: typeof tcpAddr === "object" && tcpAddr ? tcpAddr.port : 0,
    udpPort: udp.address().port,
    close: () => {
      srv.close();
      udp.close();
    },
  };
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  return typeof addr === "object" && addr ? addr.port : 0;
}

/** How the agent's node is started: flags, environment, executable. */
export interface AgentVariant {
  name: string;
  nodeArgs?: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** another agent bundle to run (e.g. one built from an earlier commit, to compare side by side) */
  bundle?: string;
}

/** One 10 s window's sample. */
export interface AgentSample {
  cpuMs: number;
  mem: CgroupMemory;
  rssAnon: number;
  rssFile: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  successes: number;
}

/** What `AgentUnderTest.start` needs. */
export interface StartOptions {
  targets: Targets;
  variant: AgentVariant;
  planes: ReadonlySet<string>;
  scrapeSeconds: number;
  node?: string;
  cgroupName: string;
  /** the cgroup's memory limit (default the chart's 128 MiB; a profiled agent writing a heap snapshot needs more) */
  limitBytes?: number;
  /**
   * run the agent in a network namespace: it advertises and serves on `address` there and reaches its controller
   * at `controllerHost` (an address of this namespace the other can route to; the controller binds it)
   */
  netns?: { namespace: string; address: string; controllerHost: string };
  /** checker settings merged over each checker's (e.g. `{ tcp: { interval: "2s" } }`) */
  checkers?: Record<string, Record<string, unknown>>;
}

export class AgentUnderTest {
  readonly name: string;
  readonly cgroup: MemoryCgroup;
  readonly #controller: Controller;
  readonly #child: ChildProcess;
  readonly #dir: string;
  readonly #metricsUrl: string;
  readonly #readyUrl: string;
  #scrapes: NodeJS.Timeout | undefined;

  private constructor(
    name: string,
    cgroup: MemoryCgroup,
    controller: Controller,
    child: ChildProcess,
    dir: string,
    ports: { http: number; metrics: number; host: string },
  ) {
    this.name = name;
    this.cgroup = cgroup;
    this.#controller = controller;
    this.#child = child;
    this.#dir = dir;
    this.#metricsUrl = `http://${ports.host}:${ports.metrics}/metrics`;
    this.#readyUrl = `http://${ports.host}:${ports.http}/readyz`;
  }

  /**
   * Starts a controller with the targets as peers and the agent (in a fresh cgroup) probing them; resolves when
   * the agent is ready. `planes`: the checkers to run; `scrapeSeconds`: /metrics read this often, as
   * Prometheus would (0: never); `node`: the node executable (e.g. a fresh copy).
   */
  static async start(o: StartOptions): Promise<AgentUnderTest> {
    // a port picked free can be taken by other work on the machine before the agent binds it: try again
    for (let attempt = 1; ; attempt++) {
      try {
        return await AgentUnderTest.#start(o);
      } catch (err) {
        if (attempt >= 3) throw err;
        process.stderr.write(`bench: ${o.cgroupName}: ${(err as Error).message}; starting again\n`);
      }
    }
  }

  static async #start(o: StartOptions): Promise<AgentUnderTest> {
    const cgroup = MemoryCgroup.open(o.cgroupName, o.limitBytes ?? AGENT_CGROUP_LIMIT);
    if (typeof cgroup === "string") throw new Error(cgroup);
    const controller = new Controller({
      // the simulated peers register from this process (the hub address when the agent is in a namespace)
      config: testConfig({
        agentTtl: 3_600_000,
        ...(o.netns ? { trustedProxyCidrs: [`${o.netns.controllerHost}/32`] } : {}),
      }),
      version: { version: "bench", commit: "bench" },
      allowLoopbackAgents: true,
      grpcHost: o.netns?.controllerHost ?? "127.0.0.1",
      httpHost: "127.0.0.1",
    });
    await controller.start();
    const raw = new RawAgentClient(controller.grpcPort, { host: o.netns?.controllerHost ?? "127.0.0.1" });
    for (const [i, address] of o.targets.addresses.entries()) {
      await raw.register(
        registerRequest({
          node_name: `peer-${i}`,
          agent_id: `peer-${i}`,
          advertise_address: address,
          // pmtu probes go only to peers advertising it (spec §2.2)
          capabilities: [
            "plane:tcp",
            "plane:udp",
            "plane:icmp",
            "plane:mtr",
            ...(o.planes.has("pmtu") ? ["plane:pmtu"] : []),
          ],
          http_port: o.targets.tcpPort,
          udp_port: o.targets.udpPort,
          metrics_port: 9,
          version: "2.5.0",
        }),
      );
    }
    const dir = mkdtempSync(join(tmpdir(), "svc-bench-agent-"));
    const ports = { http: await freePort(), metrics: await freePort(), grpc: await freePort() };
    const cfgFile = join(dir, "agent.yaml");
    const checker = (name: string, enabled: boolean) => ({ enabled, ...o.checkers?.[name] });
    writeFileSync(
      cfgFile,
      stringify({
        httpPort: ports.http,
        metricsPort: ports.metrics,
        grpcPort: ports.grpc,
        logLevel: "warn",
        controllerAddress: `${o.netns?.controllerHost ?? "127.0.0.1"}:${controller.grpcPort}`,
        checkers: {
          dns: { enabled: false },
          http: { enabled: false },
          pmtu: checker("pmtu", o.planes.has("pmtu")),
          tcp: checker("tcp", o.planes.has("tcp")),
          udp: checker("udp", o.planes.has("udp")),
          icmp: checker("icmp", o.planes.has("icmp")),
        },
      }),
    );
    const agentArgs = [
      ...(o.variant.nodeArgs ?? []),
      o.variant.bundle ?? AGENT_BUNDLE,
      "--config",
      cfgFile,
      "--lab-advertise",
      o.netns?.address ?? "127.0.0.1",
    ];
    const node = o.node ?? process.execPath;
    // `ip netns exec` execs the node: the cgroup's process is still the agent's
    const child = cgroup.spawn(
      o.netns ? "ip" : node,
      o.netns ? ["netns", "exec", o.netns.namespace, node, ...agentArgs] : agentArgs,
      {
        env: {
          ...process.env,
          ...o.variant.env,
          NODE_OPTIONS: "",
          SVC_NODE_NAME: `bench-${o.cgroupName}`,
          SVC_POD_NAME: `bench-${o.cgroupName}`,
          SVC_EXIT_WITH_STDIN: "1",
        },
        stdio: ["pipe", "inherit", "inherit"],
      },
    );
    const agent = new AgentUnderTest(o.variant.name, cgroup, controller, child, dir, {
      ...ports,
      host: o.netns?.address ?? "127.0.0.1",
    });
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(agent.#readyUrl)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (i > 300 || child.exitCode !== null) {
        await agent.stop();
        throw new Error(`agent ${o.cgroupName} did not become ready in 60 s`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    if (o.scrapeSeconds > 0) {
      agent.#scrapes = setInterval(() => void agent.#scrapeAll(), o.scrapeSeconds * 1000);
    }
    return agent;
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** One scrape as Prometheus makes it: the whole exposition read and dropped. */
  async #scrapeAll(): Promise<void> {
    try {
      await (await fetch(this.#metricsUrl)).arrayBuffer();
    } catch (err) {
      process.stderr.write(`bench: scrape of ${this.name} failed: ${(err as Error).message}\n`);
    }
  }

  async sample(): Promise<AgentSample> {
    const text = await (await fetch(this.#metricsUrl)).text();
    const q = (p: string) =>
      Number(new RegExp(`^svc_probe_start_lateness_${p}_seconds (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) *
      1000;
    let successes = 0;
    for (const m of text.matchAll(
      /svc_(?:tcp|udp|icmp)_results_total\{[^}]*result="success"[^}]*\} (\S+)/g,
    )) {
      successes += Number(m[1]);
    }
    const r = rss(this.pid);
    return {
      cpuMs: this.cgroup.cpuMs(),
      mem: this.cgroup.memory(),
      rssAnon: r.anon,
      rssFile: r.file,
      latenessP50Ms: q("p50"),
      latenessP99Ms: q("p99"),
      successes,
    };
  }

  /** Sends a signal to the agent's node (e.g. SIGUSR2 for a heap snapshot). */
  signal(sig: NodeJS.Signals): void {
    this.#child.kill(sig);
  }

  /** Stops the agent (SIGTERM, SIGKILL after 10 s), its controller and cgroup. */
  async stop(): Promise<void> {
    clearInterval(this.#scrapes);
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((r) => this.#child.once("exit", r));
      this.#child.kill("SIGTERM");
      const timer = setTimeout(() => this.#child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await this.#controller.stop();
    await this.cgroup.remove();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
