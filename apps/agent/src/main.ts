import { networkInterfaces } from "node:os";
import {
  bearerInterceptor,
  PairStateReporter,
  pairStateSender,
  tokenFileReader,
} from "@svc/controller-client";
import {
  ConfigError,
  ConfigWatcher,
  createLogger,
  loadConfig,
  SVC_VERSION,
  type SvcConfig,
  svcCommit,
  waitForShutdown,
} from "@svc/core";
import type { Peer } from "@svc/protocol";
import { CoalescingClock } from "./clock/probe-clock.ts";
import { EchoServer } from "./echo/echo-server.ts";
import { ExternalCheckRunner } from "./external/external-check-runner.ts";
import { createAgentHttpServers } from "./http/agent-servers.ts";
import { registerLatenessGauges } from "./metrics/lateness-gauge.ts";
import { ProbeMetrics } from "./metrics/probe-metrics.ts";
import { createIcmpProber } from "./probes/icmp.ts";
import { createTcpProber } from "./probes/tcp.ts";
import { createUdpProber } from "./probes/udp.ts";
import {
  agentCredentials,
  capabilitiesFor,
  RegistrationClient,
  registrationLabels,
  resolveAdvertiseAddress,
} from "./registration/index.ts";
import { ProbeScheduler } from "./scheduler/probe-scheduler.ts";
import { defaultProbers } from "./scheduler/probers.ts";
import { AgentTaskRunner } from "./tasks/task-runner.ts";

/** Options of `svc agent`. */
export interface RunAgentOptions {
  configPath?: string;
  /** lab without root: advertise this (loopback) address instead of agent.advertiseAddress */
  labAdvertise?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * `svc agent`. Start order: echo server (peers may probe us as soon as we are listed), HTTP servers, scheduler,
 * registration (peer watch feeds the scheduler; /readyz turns 200 with the first peer list), task runner
 * (one-shot diagnostics), external checks, config watcher.
 * Stop order: watcher, external checks, task runner, registration (deregisters, so peers drop us at once), scheduler (awaits probes in flight),
 * HTTP servers, echo server, icmp sockets. Resolves with the exit code.
 */
export async function runAgent(opts: RunAgentOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  let config: SvcConfig;
  let warnings: string[];
  try {
    ({ config, warnings } = loadConfig({ path: opts.configPath, env }));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`svc agent: invalid configuration:\n  ${err.issues.join("\n  ")}`);
      return 1;
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "agent" });
  for (const w of warnings) logger.warn({ warning: w }, "configuration warning");

  let advertiseAddress: string;
  let dial: ReturnType<typeof agentCredentials>;
  try {
    dial = agentCredentials(config.agent);
    advertiseAddress = resolveAdvertiseAddress({
      configured: opts.labAdvertise ?? config.agent.advertiseAddress,
      env,
      interfaces: networkInterfaces(),
      allowLoopback: opts.labAdvertise !== undefined,
    });
  } catch (err) {
    console.error(`svc agent: ${(err as Error).message}`);
    return 1;
  }
  const nodeName = config.agent.nodeName;
  const version = { version: SVC_VERSION, commit: svcCommit() };

  // Kubernetes: the pod's projected ServiceAccount token rides on every call, read again each time (rotation)
  const tokenFile = config.agent.identityTokenFile;
  const interceptors =
    tokenFile === ""
      ? []
      : [
          bearerInterceptor(
            tokenFileReader(tokenFile, (err) =>
              logger.warn({ file: tokenFile, err: err.message }, "cannot read the identity token"),
            ),
          ),
        ];
  // the pairs in trouble, reported to the controller as they change (the console's red without the metrics'
  // ingest delay), once the agent is registered
  const pairStateSend = pairStateSender(config.controllerAddress, dial.credentials, interceptors);
  let registered: () => string | undefined = () => undefined;
  const pairState = new PairStateReporter({
    agentId: () => registered(),
    send: pairStateSend.send,
    onStatus: (s) =>
      s.ok
        ? logger.info({}, "pair state reports go through again")
        : logger.warn({ err: s.error }, "pair state report failed; retrying"),
  });
  const metrics = new ProbeMetrics({
    prefix: config.metricsPrefix,
    source: { nodeName, zone: config.agent.zone },
    version: SVC_VERSION,
    pairState,
  });
  let peerEchoEndpoints = new Set<string>();
  const echo = new EchoServer({
    port: config.grpcPort,
    logger: logger.child({ subsystem: "echo" }),
    isRegisteredEchoEndpoint: (address, port) => peerEchoEndpoints.has(`${address}|${port}`),
  });
  await echo.start();

  // one clock for probe starts, sends and deadlines, so they share wake-ups (docs/decisions.md)
  const clock = new CoalescingClock();
  const icmp = createIcmpProber({ clock });
  // one socket per family for every udp run, kept open: a peer's echo rate limiter sees one stable source per
  // agent, and each peer's rounds refresh one conntrack flow
  const udp = createUdpProber({ clock });
  const tcp = createTcpProber({ clock });
  const scheduler = new ProbeScheduler({
    clock,
    metrics,
    selfNodeName: nodeName,
    ports: { httpPort: config.httpPort, grpcPort: config.grpcPort },
    checkers: config.checkers,
    probers: { icmp, udp, tcp },
  });
  registerLatenessGauges(metrics.registry, config.metricsPrefix, () => scheduler.latenessSummary());

  const registration = new RegistrationClient({
    controllerAddress: config.controllerAddress,
    nodeName,
    advertiseAddress,
    zone: config.agent.zone,
    labels: registrationLabels(env),
    capabilities: capabilitiesFor(config.checkers),
    ports: { httpPort: config.httpPort, udpPort: config.grpcPort, metricsPort: config.metricsPort },
    version: SVC_VERSION,
    logger: logger.child({ subsystem: "registration" }),
    credentials: dial.credentials,
    interceptors,
  });
  const servers = createAgentHttpServers({
    httpPort: config.httpPort,
    metricsPort: config.metricsPort,
    registry: metrics.registry,
    isReady: () => registration.ready(),
    version,
  });
  await servers.start();

  let zone = config.agent.zone;
  registration.onPeers((peers: Peer[], planned, resolvedZone) => {
    if (resolvedZone && resolvedZone !== zone) {
      zone = resolvedZone;
      metrics.setSource({ nodeName, zone });
    }
    peerEchoEndpoints = new Set(peers.map((p) => `${p.address}|${p.udpPort ?? config.grpcPort}`));
    scheduler.setPeers(peers, planned);
  });
  const probers = { ...defaultProbers(), icmp, udp };
  let liveCheckers = config.checkers;
  const external = new ExternalCheckRunner({
    controllerAddress: config.controllerAddress,
    credentials: dial.credentials,
    interceptors,
    agentId: () => registration.agentId(),
    metricsRegistry: metrics.registry,
    metricsPrefix: config.metricsPrefix,
    sourceNode: nodeName,
    sourceZone: () => zone,
    probers,
    config: config.checkers.external,
    logger: logger.child({ subsystem: "external" }),
  });
  const tasks = new AgentTaskRunner({
    controllerAddress: config.controllerAddress,
    credentials: dial.credentials,
    interceptors,
    agentId: () => registration.agentId(),
    registered: () => registration.ready(),
    ports: { httpPort: config.httpPort, udpPort: config.grpcPort },
    probers,
    // read at each task: diagnostics use the live (hot-reloaded) checkers.*
    checkers: () => liveCheckers,
    admitExternal: (task) => external.admitDiagnostic(task),
    logger: logger.child({ subsystem: "tasks" }),
  });
  registered = () => (registration.ready() ? registration.agentId() : undefined);
  scheduler.start();
  registration.start();
  pairState.start();
  tasks.start();
  external.start();
  logger.info(
    { version: SVC_VERSION, nodeName, advertiseAddress, controller: config.controllerAddress },
    "agent started",
  );

  const path = opts.configPath ?? env.SVC_CONFIG;
  const watcher = path
    ? new ConfigWatcher({
        path,
        env,
        component: "agent",
        current: config,
        logger,
        onApply: (next) => {
          liveCheckers = next.checkers;
          scheduler.applyConfig(next.checkers);
          external.applyConfig(next.checkers.external);
          registration.updateCapabilities(capabilitiesFor(next.checkers));
        },
      })
    : undefined;
  watcher?.start();
  const onHup = () => void watcher?.reload();
  process.on("SIGHUP", onHup);

  const why = await waitForShutdown(env);
  logger.info({ reason: why }, "agent stopping");
  process.off("SIGHUP", onHup);
  watcher?.stop();
  external.stop();
  pairState.stop();
  pairStateSend.channel.close();
  await tasks.stop();
  await registration.stop();
  await scheduler.stop();
  await servers.stop();
  await echo.stop();
  icmp.close();
  udp.close();
  return 0;
}
