import {
  ConfigError,
  ConfigWatcher,
  createLogger,
  loadConfig,
  SVC_VERSION,
  svcCommit,
  waitForShutdown,
} from "@svc/core";
import { Controller } from "./controller.ts";
import { applyHeapPolicy } from "./heap-policy.ts";
import { createLeaderElector, electionNamespace, kubeConfigFromEnvironment } from "./leader/index.ts";
import { KubernetesNodeSource } from "./nodes/kubernetes-node-source.ts";
import { KubernetesPodAddresses } from "./nodes/pod-addresses.ts";

/** Options of `svc controller`. */
export interface RunControllerOptions {
  configPath?: string;
  /** accept agents advertising loopback addresses (the lab without root) */
  allowLoopbackAgents?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * `svc controller`: load config, start the controller, hot-reload the config file, stop on SIGINT/SIGTERM.
 * Stop order: config watcher, leader election (the Lease is released), the controller (gRPC streams end,
 * then HTTP), the node watch. Resolves with the exit code.
 */
export async function runController(opts: RunControllerOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig({ path: opts.configPath, env });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`svc controller: invalid configuration:\n  ${err.issues.join("\n  ")}`);
      return 1;
    }
    throw err;
  }
  const { config, warnings } = loaded;
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "controller" });
  for (const w of warnings) logger.warn({ warning: w }, "configuration warning");
  const heapFlags = applyHeapPolicy();
  if (heapFlags.length > 0) logger.debug({ flags: heapFlags }, "garbage-collection policy applied");

  // Inside Kubernetes (KUBERNETES_SERVICE_HOST set): Node watch and Lease election. Outside: nodes come from
  // registrations and this controller is always the leader. A developer's kubeconfig is never used.
  const kubeConfig = kubeConfigFromEnvironment(env);
  const elector = createLeaderElector({
    config,
    kubeConfig,
    env,
    logger: logger.child({ subsystem: "leader" }),
  });
  const nodes = kubeConfig
    ? new KubernetesNodeSource({
        kubeConfig,
        failureDomainLabel: config.failureDomainLabel,
        logger: logger.child({ subsystem: "nodes" }),
      })
    : undefined;
  const controller = new Controller({
    config,
    logger,
    version: { version: SVC_VERSION, commit: svcCommit() },
    allowLoopbackAgents: opts.allowLoopbackAgents ?? false,
    isLeader: () => elector.isLeader(),
    nodeSource: nodes ? () => nodes : undefined,
    // agents run in the controller's namespace (the chart installs both there)
    podAddresses: kubeConfig
      ? new KubernetesPodAddresses({ kubeConfig, namespace: electionNamespace(env) })
      : undefined,
  });
  await nodes?.start();
  await controller.start();
  elector.start();
  logger.info(
    { version: SVC_VERSION, httpPort: controller.httpPort, grpcPort: controller.grpcPort },
    "controller started",
  );

  const path = opts.configPath ?? env.SVC_CONFIG;
  const watcher = path
    ? new ConfigWatcher({
        path,
        env,
        component: "controller",
        current: config,
        logger,
        onApply: (next) => controller.applyConfig(next),
      })
    : undefined;
  watcher?.start();
  const onHup = () => void watcher?.reload();
  process.on("SIGHUP", onHup);

  const why = await waitForShutdown(env);
  logger.info({ reason: why }, "controller stopping");
  process.off("SIGHUP", onHup);
  watcher?.stop();
  await elector.stop(); // releases the Lease first, so a standby takes over at once
  await controller.stop();
  await nodes?.stop();
  return 0;
}
