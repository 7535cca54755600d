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
import { KubernetesTokenReviewer } from "./identity/token-review.ts";
import {
  createLeaderElector,
  electionNamespace,
  kubeConfigFromEnvironment,
  kubeConfigFromFile,
} from "./leader/index.ts";
import { KubernetesNodeSource } from "./nodes/kubernetes-node-source.ts";

/** Options of `svc controller`. */
export interface RunControllerOptions {
  configPath?: string;
  /** accept agents advertising loopback addresses (the lab without root) */
  allowLoopbackAgents?: boolean;
  /** a kubeconfig file to reach the Kubernetes API with (Kubernetes mode outside a pod); default: in-cluster only */
  kubeconfig?: string;
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

  // Inside Kubernetes (KUBERNETES_SERVICE_HOST set), or with --kubeconfig: Node watch, Lease election and agents
  // proved by their ServiceAccount token. Outside: nodes come from registrations, this controller is always the
  // leader and an agent is known by its source address. A developer's kubeconfig is never picked up unasked.
  let kubeConfig: ReturnType<typeof kubeConfigFromEnvironment>;
  try {
    kubeConfig = opts.kubeconfig ? kubeConfigFromFile(opts.kubeconfig) : kubeConfigFromEnvironment(env);
  } catch (err) {
    console.error(`svc controller: cannot load --kubeconfig ${opts.kubeconfig}: ${(err as Error).message}`);
    return 1;
  }
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
    agentTokens: kubeConfig
      ? new KubernetesTokenReviewer({
          kubeConfig,
          namespace: electionNamespace(env),
          serviceAccount: config.controller.agentIdentity.serviceAccount,
          audience: config.controller.agentIdentity.audience,
        })
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
