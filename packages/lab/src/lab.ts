import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import { stringify } from "yaml";
import { LabDnsServer } from "./dns.ts";
import { isRoot } from "./exec.ts";
import { applyFault, type Fault, type FaultEndpoint, healAll } from "./faults.ts";
import { startLabConsole } from "./lab-console.ts";
import { deepMerge } from "./merge.ts";
import {
  addNode,
  bridgeAddress,
  bridgeIfindex,
  createBridge,
  destroyNetwork,
  listLabNamespaces,
} from "./netns.ts";
import { freePorts } from "./ports.ts";
import { httpOk, type ManagedProcess, startProcess, stopProcess, waitFor } from "./processes.ts";
import { type ScrapeTarget, startPrometheus } from "./prometheus.ts";
import { type LabState, processStart, removeState, writeState } from "./state.ts";

/** Options of a lab. */
export interface LabOptions {
  /** number of agents (default 3) */
  agents?: number;
  /** put each agent in its own network namespace (default: when root) */
  netns?: boolean;
  /** path of the prometheus binary; false = no Prometheus (default: /usr/bin/prometheus when it exists) */
  prometheus?: string | false;
  /** Prometheus scrape interval (default 5 s) */
  scrapeIntervalSeconds?: number;
  /** rule files Prometheus loads (e.g. the console's recording rules: `svc lab` passes them) */
  prometheusRules?: readonly { name: string; yaml: string }[];
  /** working directory for configs, logs and Prometheus data (default: a new temp dir) */
  dir?: string;
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

// spawned, never imported (packages never import apps): the `svc` command runs each binary
const SVC_BIN = fileURLToPath(new URL("../../../apps/cli/bin/svc.mjs", import.meta.url));
const DEFAULT_PROMETHEUS = "/usr/bin/prometheus";

/** A local cluster: a controller, N agents, a DNS responder and (optionally) Prometheus. */
export class Lab {
  readonly nodes: LabNode[] = [];
  controllerUrl = "";
  controllerMetricsUrl = "";
  prometheusUrl: string | undefined;
  /** the console's URL and its bootstrap administrator (when the console runs) */
  consoleUrl: string | undefined;
  consoleAdmin: { username: string; password: string } | undefined;
  index = 0;
  /** ifindex of the bridge this lab made (netns labs), recorded in its state */
  private bridgeIfindex: number | undefined;
  dir = "";
  netns = false;
  private controller: ManagedProcess | undefined;
  private prometheus: ManagedProcess | undefined;
  private console: ManagedProcess | undefined;
  private dns: LabDnsServer | undefined;
  /** aborted by stop(): a start in progress gives up at its next step */
  private readonly abort = new AbortController();
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: LabOptions = {}) {}

  private log(line: string): void {
    this.opts.log?.(line);
  }

  /** The directory the console writes its alert rule file into and the lab's Prometheus loads `*.yml` from. */
  alertRuleDirectory(): string {
    return join(this.dir, "console-alert-rules");
  }

  /**
   * Starts everything; on failure tears down what was started and rethrows. stop() during a start makes it give up
   * at its next step (rejecting) and tears everything down.
   */
  async start(): Promise<void> {
    this.starting = this.startInner();
    try {
      await this.starting;
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Throws when stop() was called: a start in progress goes no further. */
  private checkStopped(): void {
    if (this.abort.signal.aborted) throw new Error("lab stopped while starting");
  }

  private async startInner(): Promise<void> {
    const count = this.opts.agents ?? 3;
    if (!Number.isInteger(count) || count < 1 || count > 200) throw new Error("agents must be 1-200");
    this.netns = this.opts.netns ?? isRoot();
    if (this.netns && !isRoot())
      throw new Error("network namespaces need root: run as root or pass --no-netns");
    this.dir = this.opts.dir ?? mkdtempSync(join(tmpdir(), "svc-lab-"));
    mkdirSync(this.dir, { recursive: true });
    const zones = this.opts.zones ?? ["zone-a", "zone-b"];

    let controllerHost = "127.0.0.1";
    const namespaces: { name: string; namespace: string; address: string }[] = [];
    if (this.netns) {
      this.index = await createBridge();
      this.bridgeIfindex = bridgeIfindex(this.index);
      // claimed: from now on `svc lab down` elsewhere sees this lab as running (its state names this process).
      // Before this write `down` finds the bridge without a state file and leaves it alone.
      writeState(this.state());
      this.checkStopped();
      controllerHost = bridgeAddress(this.index);
      this.log(`network: bridge svcbr${this.index}, 198.18.${this.index}.0/24`);
      for (let i = 1; i <= count; i++) {
        const n = await addNode(this.index, `node-${i}`, i);
        this.checkStopped();
        namespaces.push({ name: n.name, namespace: n.namespace, address: n.address });
      }
    } else {
      this.index = 1000 + (process.pid % 100000);
      for (let i = 1; i <= count; i++)
        namespaces.push({ name: `node-${i}`, namespace: "", address: "127.0.0.1" });
    }

    // DNS responder for the dns checker: lab names only, never the machine's resolver.
    const dnsRecords: Record<string, string> = { "kubernetes.default.svc.cluster.local": controllerHost };
    for (const n of namespaces) dnsRecords[`${n.name}.lab`] = n.address;
    this.checkStopped();
    this.dns = new LabDnsServer(dnsRecords);
    const dnsPort = await this.dns.start(controllerHost, this.netns ? 53 : 0);
    const resolver = dnsPort === 53 ? controllerHost : `${controllerHost}:${dnsPort}`;

    const [cHttp, cMetrics, cGrpc, promPort] = await freePorts(4);
    this.checkStopped();
    const controllerConfig = this.merge({
      httpPort: cHttp,
      metricsPort: cMetrics,
      grpcPort: cGrpc,
      // domain events on: the console's feed, history and Time Machine are fed by this stream
      controller: { leaderElection: false, events: { enabled: true } },
    });
    const controllerFile = join(this.dir, "controller.yaml");
    writeFileSync(controllerFile, stringify(controllerConfig));
    const cArgs = [SVC_BIN, "controller", "--config", controllerFile];
    if (!this.netns) cArgs.push("--allow-loopback-agents");
    this.controller = startProcess("controller", process.execPath, cArgs, {
      logFile: join(this.dir, "controller.log"),
    });
    this.controllerUrl = `http://127.0.0.1:${cHttp}`;
    this.controllerMetricsUrl = `http://127.0.0.1:${cMetrics}`;
    await waitFor(
      "controller /readyz",
      () => httpOk(`${this.controllerUrl}/readyz`),
      30_000,
      this.controller,
      this.abort.signal,
    );
    this.log(`controller: ${this.controllerUrl} (gRPC ${controllerHost}:${cGrpc})`);

    const agentPorts = this.netns ? [] : await freePorts(count * 3);
    this.checkStopped();
    for (const [i, n] of namespaces.entries()) {
      const ports = this.netns
        ? { httpPort: 8080, metricsPort: 9091, grpcPort: 9090 }
        : {
            httpPort: agentPorts[i * 3]!,
            metricsPort: agentPorts[i * 3 + 1]!,
            grpcPort: agentPorts[i * 3 + 2]!,
          };
      const zone = zones[i % zones.length] ?? "zone-a";
      const cfg = this.merge({
        ...ports,
        controllerAddress: `${controllerHost}:${cGrpc}`,
        checkers: {
          dns: { hosts: ["kubernetes.default.svc.cluster.local", `${n.name}.lab`], resolvers: [resolver] },
        },
      });
      const file = join(this.dir, `${n.name}.yaml`);
      writeFileSync(file, stringify(cfg));
      // started as an operator starts an agent: its node flags and malloc environment (@svc/core agent-start.ts)
      const env = {
        ...AGENT_ENV,
        SVC_NODE_NAME: n.name,
        SVC_ZONE: zone,
        SVC_POD_NAME: `svc-agent-${n.name}`,
        SVC_POD_IP: n.address,
      };
      const args = [...AGENT_NODE_FLAGS, SVC_BIN, "agent", "--config", file];
      if (!this.netns) args.push("--lab-advertise", n.address);
      const proc = this.netns
        ? startProcess(n.name, "ip", ["netns", "exec", n.namespace, process.execPath, ...args], {
            env,
            logFile: join(this.dir, `${n.name}.log`),
          })
        : startProcess(n.name, process.execPath, args, { env, logFile: join(this.dir, `${n.name}.log`) });
      const host = this.netns ? n.address : "127.0.0.1";
      this.nodes.push({
        name: n.name,
        zone,
        namespace: n.namespace || undefined,
        address: n.address,
        ...ports,
        httpUrl: `http://${host}:${ports.httpPort}`,
        metricsUrl: `http://${host}:${ports.metricsPort}`,
        process: proc,
      });
    }
    for (const node of this.nodes) {
      await waitFor(
        `${node.name} /readyz`,
        () => httpOk(`${node.httpUrl}/readyz`),
        30_000,
        node.process,
        this.abort.signal,
      );
      this.log(`agent ${node.name} (${node.zone}): ${node.httpUrl}  metrics ${node.metricsUrl}`);
    }

    const prom = this.opts.prometheus ?? (existsSync(DEFAULT_PROMETHEUS) ? DEFAULT_PROMETHEUS : false);
    // the console's ports are chosen before Prometheus starts, so Prometheus scrapes the console too (the health
    // dashboard's console panels); it starts after Prometheus, whose URL it needs
    const withConsole = this.opts.console ?? true;
    const consolePorts = withConsole ? await freePorts(2) : [];
    this.checkStopped();
    if (prom) {
      const targets: ScrapeTarget[] = [
        { job: "svc-controller", targets: [`127.0.0.1:${cMetrics}`] },
        ...(withConsole ? [{ job: "svc-console", targets: [`127.0.0.1:${consolePorts[1]}`] }] : []),
        ...this.nodes.map((n) => ({
          job: "svc-agent",
          targets: [new URL(n.metricsUrl).host],
          labels: { node: n.name },
        })),
      ];
      const started = await startPrometheus({
        binary: prom,
        dir: this.dir,
        port: promPort!,
        targets,
        intervalSeconds: this.opts.scrapeIntervalSeconds ?? 5,
        rules: this.opts.prometheusRules ?? [],
        ruleDirectory: this.alertRuleDirectory(),
        signal: this.abort.signal,
      });
      this.prometheus = started.process;
      this.prometheusUrl = started.url;
      this.log(`prometheus: ${this.prometheusUrl}`);
    } else {
      this.log("prometheus: not started (binary not found)");
    }
    if (withConsole) await this.startConsole(cHttp!, cGrpc!, consolePorts[0]!, consolePorts[1]!);
    writeState(this.state());
  }

  /** Starts the console (see startLabConsole); stop() stops it even when it is still starting. */
  private async startConsole(
    controllerHttpPort: number,
    controllerGrpcPort: number,
    httpPort: number,
    metricsPort: number,
  ): Promise<void> {
    this.consoleUrl = `http://127.0.0.1:${httpPort}`;
    const started = await startLabConsole({
      svcBin: SVC_BIN,
      dir: this.dir,
      controllerHttpPort,
      controllerGrpcPort,
      httpPort,
      metricsPort,
      prometheusUrl: this.prometheusUrl,
      ruleDirectory: this.alertRuleDirectory(),
      alertPollInterval: this.opts.alertPollInterval,
      signal: this.abort.signal,
    });
    this.console = started.process;
    this.consoleAdmin = started.admin;
    this.log(`console: ${this.consoleUrl} (admin / ${started.admin.password})`);
  }

  private merge(base: Record<string, unknown>): Record<string, unknown> {
    return deepMerge(base, this.opts.config ?? {});
  }

  /** What `svc lab fault` run from another terminal needs. */
  state(): LabState {
    const pidStart = processStart(process.pid);
    return {
      pid: process.pid,
      ...(pidStart === undefined ? {} : { pidStart }),
      index: this.index,
      ...(this.bridgeIfindex === undefined ? {} : { bridgeIfindex: this.bridgeIfindex }),
      dir: this.dir,
      netns: this.netns,
      controllerUrl: this.controllerUrl,
      prometheusUrl: this.prometheusUrl,
      nodes: this.nodes.map((n) => ({
        name: n.name,
        namespace: n.namespace ?? "",
        address: n.address,
        tcpPort: n.httpPort,
        udpPort: n.grpcPort,
      })),
    };
  }

  /** Injects a fault between lab nodes (network namespaces only). */
  async fault(fault: Fault): Promise<void> {
    await injectFault(this.state(), fault);
  }

  /** Removes every injected fault. */
  async heal(): Promise<void> {
    await healLab(this.state());
  }

  node(name: string): LabNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no lab node ${name}`);
    return n;
  }

  /**
   * Stops every process and removes the network and the state file; safe to call twice and during start() (which
   * then gives up at its next step; the teardown waits for that).
   */
  stop(): Promise<void> {
    this.stopping ??= this.teardown();
    return this.stopping;
  }

  private async teardown(): Promise<void> {
    this.abort.abort();
    await this.starting?.catch(() => undefined);
    await Promise.all(this.nodes.map((n) => stopProcess(n.process)));
    if (this.controller) await stopProcess(this.controller);
    if (this.prometheus) await stopProcess(this.prometheus);
    if (this.console) await stopProcess(this.console);
    this.dns?.stop();
    if (this.netns && this.index > 0) {
      // every namespace of this lab's index, also one whose node had not started yet (the index is this lab's own)
      await destroyNetwork(this.index, await listLabNamespaces(this.index).catch(() => []));
    }
    removeState(this.state());
  }
}

/** Injects a fault into the lab described by `state`. */
export async function injectFault(state: LabState, fault: Fault): Promise<void> {
  if (!state.netns) throw new Error("faults need the network-namespace lab (run `svc lab` as root)");
  await applyFault(fault, endpoints(state));
}

/** Heals every fault of the lab described by `state`. */
export async function healLab(state: LabState): Promise<void> {
  if (!state.netns) return;
  await healAll(state.nodes.map((n) => n.namespace));
}

function endpoints(state: LabState): Map<string, FaultEndpoint> {
  return new Map(
    state.nodes.map((n) => [
      n.name,
      { namespace: n.namespace, address: n.address, tcpPort: n.tcpPort, udpPort: n.udpPort },
    ]),
  );
}
