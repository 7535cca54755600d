import { type Args, parseArgs, UsageError } from "./args.ts";
import { CHECK_USAGE, checkCommand } from "./check-command.ts";
import { LAB_USAGE, labCommand } from "./lab-command.ts";
import { TOPOLOGY_USAGE, topologyCommand } from "./topology-command.ts";

const USAGE = `svc — network-connectivity monitoring for Kubernetes clusters

usage:
  svc agent [--config FILE]        run an agent (config path also from SVC_CONFIG)
  svc controller [--config FILE]   run the controller
  svc console [--config FILE]      run the console
                                   these three run their bundles (npm run build); --from-sources or
                                   SVC_FROM_SOURCES=1 runs the TypeScript sources instead
  svc lab ...                      local cluster: controller, agents, Prometheus (svc lab --help)
  svc topology ...                 show the controller's topology
  svc check ...                    run a one-shot check through the controller
  svc version                      print the version

${TOPOLOGY_USAGE}

${CHECK_USAGE}

${LAB_USAGE}`;

/** Entry point of the `svc` command; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let args: Args;
  try {
    const cmd = argv[0];
    // the binaries parse their own flags: the same code runs from their bundles (apps/cli/bin/svc.mjs)
    if (cmd === "agent") {
      const { agentCommand } = await import("@svc/agent");
      return await agentCommand(argv.slice(1));
    }
    if (cmd === "controller") {
      const { controllerCommand } = await import("@svc/controller");
      return await controllerCommand(argv.slice(1));
    }
    if (cmd === "console") {
      const { consoleCommand } = await import("@svc/console");
      return await consoleCommand(argv.slice(1));
    }
    if (cmd === "lab" && argv[1] === "path") {
      // path labs parse their own words and flags
      const { pathLabCommand } = await import("@svc/lab");
      await pathLabCommand(argv.slice(2), (line) => console.log(line));
      return 0;
    }
    args = parseArgs(argv);
    if (cmd === undefined || (args.flags.has("help") && cmd !== "lab")) {
      console.log(USAGE);
      return cmd === undefined && !args.flags.has("help") ? 1 : 0;
    }
    switch (cmd) {
      case "lab":
        if (args.flags.has("help")) {
          console.log(LAB_USAGE);
          return 0;
        }
        return await labCommand(args);
      case "topology":
        return await topologyCommand(args);
      case "check":
        return await checkCommand(args);
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
