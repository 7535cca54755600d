import { parseArgs } from "node:util";
import { runController } from "./main.ts";

export const CONTROLLER_USAGE = `usage: svc controller [--config FILE] [--allow-loopback-agents] [--kubeconfig FILE]
  --config FILE              configuration file (also SVC_CONFIG)
  --allow-loopback-agents    accept agents advertising loopback addresses (a local lab without root)
  --kubeconfig FILE          Kubernetes mode outside a pod: the API server of this kubeconfig (its current context)`;

/** `svc controller ...`: parses the controller's flags and runs it; resolves with the exit code. */
export async function controllerCommand(argv: readonly string[]): Promise<number> {
  let values: { config?: string; "allow-loopback-agents"?: boolean; kubeconfig?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        "allow-loopback-agents": { type: "boolean" },
        kubeconfig: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(`svc controller: ${(err as Error).message}\n${CONTROLLER_USAGE}`);
    return 1;
  }
  if (values.help) {
    console.log(CONTROLLER_USAGE);
    return 0;
  }
  return runController({
    configPath: values.config,
    allowLoopbackAgents: values["allow-loopback-agents"] === true,
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
  });
}
