import { parseArgs } from "node:util";
import { runConsole } from "./main.ts";

export const CONSOLE_USAGE = `usage: svc console [--config FILE]
  --config FILE   configuration file (also SVC_CONFIG)`;

/** `svc console ...`: parses the console's flags and runs it; resolves with the exit code. */
export async function consoleCommand(argv: readonly string[]): Promise<number> {
  let values: { config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { config: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(`svc console: ${(err as Error).message}\n${CONSOLE_USAGE}`);
    return 1;
  }
  if (values.help) {
    console.log(CONSOLE_USAGE);
    return 0;
  }
  return runConsole({ configPath: values.config });
}
