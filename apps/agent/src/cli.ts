import { parseArgs } from "node:util";
import { runAgent } from "./main.ts";

export const AGENT_USAGE = `usage: svc agent [--config FILE] [--lab-advertise ADDRESS]
  --config FILE            configuration file (also SVC_CONFIG)
  --lab-advertise ADDRESS  local lab without root only: advertise this loopback address`;

/** `svc agent ...`: parses the agent's flags and runs it; resolves with the exit code. */
export async function agentCommand(argv: readonly string[]): Promise<number> {
  let values: { config?: string; "lab-advertise"?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        "lab-advertise": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(`svc agent: ${(err as Error).message}\n${AGENT_USAGE}`);
    return 1;
  }
  if (values.help) {
    console.log(AGENT_USAGE);
    return 0;
  }
  return runAgent({ configPath: values.config, labAdvertise: values["lab-advertise"] });
}
