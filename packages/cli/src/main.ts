import { type Args, allowFlags, parseArgs, stringFlag, UsageError } from "./args.ts";
import { LAB_USAGE, labCommand } from "./lab-command.ts";

const USAGE = `svc — network-connectivity monitoring for Kubernetes clusters

usage:
  svc agent [--config FILE]        run an agent (config path also from SVC_CONFIG)
  svc controller [--config FILE]   run the controller
  svc lab ...                      local cluster: controller, agents, Prometheus (svc lab --help)
  svc version                      print the version

${LAB_USAGE}`;

/** Entry point of the `svc` command; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
    const cmd = args.words[0];
    if (cmd === undefined || (args.flags.has("help") && cmd !== "lab")) {
      console.log(USAGE);
      return cmd === undefined && !args.flags.has("help") ? 1 : 0;
    }
    switch (cmd) {
      case "agent": {
        allowFlags(args, ["config", "lab-advertise"]);
        const { runAgent } = await import("@svc/agent");
        return await runAgent({
          configPath: stringFlag(args, "config"),
          labAdvertise: stringFlag(args, "lab-advertise"),
        });
      }
      case "controller": {
        allowFlags(args, ["config", "allow-loopback-agents"]);
        const { runController } = await import("@svc/controller");
        return await runController({
          configPath: stringFlag(args, "config"),
          allowLoopbackAgents: args.flags.has("allow-loopback-agents"),
        });
      }
      case "lab":
        if (args.flags.has("help")) {
          console.log(LAB_USAGE);
          return 0;
        }
        return await labCommand(args);
      case "version": {
        const { SVC_VERSION } = await import("@svc/core");
        console.log(SVC_VERSION);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`svc: ${err.message}\n\n${USAGE}`);
      return 1;
    }
    console.error(`svc: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
