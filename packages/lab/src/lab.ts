import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { type LabControl, startControl } from "./control.ts";
import { LabDnsServer } from "./dns.ts";
import { isRoot } from "./exec.ts";
import type { Fault } from "./faults.ts";
import { agentStart } from "./lab-agent.ts";
import { startLabConsole } from "./lab-console.ts";
import { newLabDir } from "./lab-dirs.ts";
import { endpoints, LabFaults } from "./lab-faults.ts";
import { type LabMetrics, labScrapeTargets, startLabMetrics } from "./lab-metrics.ts";
import type { LabNode, LabOptions } from "./lab-options.ts";

export type { LabNode, LabOptions };

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
import { type LabState, processStart, removeState, writeState } from "./state.ts";
import { victoriaMetricsInstalled } from "./victoria-metrics.ts";

// spawned, never imported (packages never import apps): the `svc` command runs each binary
const SVC_BIN = fileURLToPath(new URL("../../../apps/cli/bin/svc.mjs", import.meta.url));
const DEFAULT_PROMETHEUS = "/usr/bin/prometheus";

/** A local cluster: a controller, N agents, a DNS responder and (optionally) Prometheus. */
export class Lab {
  readonly nodes: LabNode[] = [];
  controllerUrl = "";
  controllerMetricsUrl = "";
  /** the metrics query endpoint (Prometheus, or victoria-metrics with `metrics: "victoria-metrics"`) */
  prometheusUrl: string | undefined;
  /** the rule evaluator when it is not the query endpoint (vmalert) */
  evaluatorUrl: string | undefined;
  /** the other processes of the VictoriaMetrics stack (stopped with the lab) */
  /** the metrics backend (Prometheus or VictoriaMetrics), once started */
  private metrics: LabMetrics | undefined;
  /** the console's URL and its bootstrap administrator (when the console runs) */
  consoleUrl: string | undefined;
  consoleAdmin: { username: string; password: string } | undefined;
  index = 0;
  /** set when the start failed: the directory stays for its logs */
  private keepDir = false;
  /** ifindex of the bridge this lab made (netns labs), recorded in its state */
  private bridgeIfindex: number | undefined;
  dir = "";
  netns = false;
  private controller: ManagedProcess | undefined;
  private console: ManagedProcess | undefined;
  private dns: LabDnsServer | undefined;
  /** aborted by stop(): a start in progress gives up at its next step */
  private readonly abort = new AbortController();
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** starts (again) the agent of each node, as the lab first started it */
  private readonly agentStarts = new Map<string, () => ManagedProcess>();
  /** the faults in place (svc lab fault / heal / status) */
  readonly faults: LabFaults;
  private control: LabControl | undefined;

  constructor(private readonly opts: LabOptions = {}) {
    this.faults = new LabFaults({
      endpoints: () => endpoints(this.state()),
      stopAgent: (name) => this.stopAgent(name),
      startAgent: (name) => this.startAgent(name),
      changed: () => {
        if (this.control) writeState(this.state());
      },
    });
  }

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
      // a start that failed keeps its directory (its processes' logs say why), removeDirOnStop or not
      this.keepDir = true;
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
    const victoria = this.opts.metrics === "victoria-metrics";
    if (victoria && !victoriaMetricsInstalled())
      throw new Error(
        "--metrics victoria-metrics needs victoria-metrics, vmagent and vmalert (Debian: apt-get install victoria-metrics)",
      );
    this.netns = this.opts.netns ?? isRoot();
    if (this.netns && !isRoot())
      throw new Error("network namespaces need root: run as root or pass --no-netns");
    // a directory of its own keeps the newest few labs' and the running labs' only (lab-dirs.ts)
    this.dir = this.opts.dir ?? newLabDir(tmpdir());
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
      const start = agentStart({
        svcBin: SVC_BIN,
        dir: this.dir,
        netns: this.netns,
        node: { name: n.name, namespace: n.namespace, address: n.address, zone },
        config: cfg,
      });
      this.agentStarts.set(n.name, start);
      const proc = start();
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

    // the console's ports are chosen before Prometheus starts, so Prometheus scrapes the console too (the health
    // dashboard's console panels); it starts after Prometheus, whose URL it needs
    const withConsole = this.opts.console ?? true;
    const consolePorts = withConsole ? await freePorts(2) : [];
    this.checkStopped();
    const prometheus = this.opts.prometheus ?? (existsSync(DEFAULT_PROMETHEUS) ? DEFAULT_PROMETHEUS : false);
    this.metrics = await startLabMetrics({
      backend: victoria ? "victoria-metrics" : { prometheus, port: promPort! },
      dir: this.dir,
      targets: labScrapeTargets(cMetrics!, withConsole ? consolePorts[1] : undefined, this.nodes),
      // external agents (bare hosts) through the controller's discovery list, as an operator's Prometheus finds them
      discovery: [{ job: "svc-external-agents", url: `${this.controllerMetricsUrl}/api/v1/scrape/sd` }],
      intervalSeconds: this.opts.scrapeIntervalSeconds ?? 5,
      rules: this.opts.prometheusRules ?? [],
      ruleDirectory: this.alertRuleDirectory(),
      signal: this.abort.signal,
    });
    this.prometheusUrl = this.metrics?.queryUrl;
    this.evaluatorUrl = this.metrics?.evaluatorUrl;
    this.log(this.metrics?.line ?? "prometheus: not started (binary not found)");
    if (withConsole) await this.startConsole(cHttp!, cGrpc!, consolePorts[0]!, consolePorts[1]!);
    this.checkStopped();
    this.control = await startControl({
      fault: (f) => this.fault(f),
      heal: () => this.heal(),
      state: () => this.state(),
    });
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
      ...(this.evaluatorUrl ? { evaluatorUrl: this.evaluatorUrl } : {}),
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
      ...(this.evaluatorUrl ? { evaluatorUrl: this.evaluatorUrl } : {}),
      nodes: this.nodes.map((n) => ({
        name: n.name,
        namespace: n.namespace ?? "",
        address: n.address,
        tcpPort: n.httpPort,
        udpPort: n.grpcPort,
        zone: n.zone,
      })),
      faults: this.faults.stateEntries(),
      ...(this.control ? { control: { url: this.control.url, token: this.control.token } } : {}),
    };
  }

  /** Puts a fault in place (network namespaces only); listed by status until heal(). */
  async fault(fault: Fault): Promise<void> {
    if (!this.netns) throw new Error("faults need the network-namespace lab (run `svc lab` as root)");
    await this.faults.inject(fault);
  }

  /** Removes every fault, and starts every stopped agent again. */
  async heal(): Promise<void> {
    if (!this.netns) return;
    await this.faults.heal();
  }

  /** Kills a node's agent outright (SIGKILL: no deregistration, as a crash leaves it). */
  async stopAgent(name: string): Promise<void> {
    const node = this.node(name);
    node.process.child.kill("SIGKILL");
    await node.process.exited;
  }

  /** Starts a node's agent again as the lab first started it, and waits until it is ready. */
  async startAgent(name: string): Promise<void> {
    const node = this.node(name);
    const start = this.agentStarts.get(name);
    if (!start) throw new Error(`no lab node ${name}`);
    if (node.process.child.exitCode === null && node.process.child.signalCode === null) return;
    node.process = start();
    await waitFor(
      `${name} /readyz`,
      () => httpOk(`${node.httpUrl}/readyz`),
      30_000,
      node.process,
      this.abort.signal,
    );
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
    this.faults.stop();
    await this.starting?.catch(() => undefined);
    await this.control?.close();
    await Promise.all(this.nodes.map((n) => stopProcess(n.process)));
    if (this.controller) await stopProcess(this.controller);
    await this.metrics?.stop();
    if (this.console) await stopProcess(this.console);
    this.dns?.stop();
    if (this.netns && this.index > 0) {
      // every namespace of this lab's index, also one whose node had not started yet (the index is this lab's own)
      await destroyNetwork(this.index, await listLabNamespaces(this.index).catch(() => []));
    }
    removeState(this.state());
    if (this.opts.removeDirOnStop && !this.keepDir && this.dir !== "")
      rmSync(this.dir, { recursive: true, force: true });
  }
}
