import { type Args, UsageError } from "./args.ts";

/** Output format of the read commands. */
export type OutputFormat = "table" | "json";

/**
 * Reads the output format from `-o json` / `-o=json` / `-ojson` (left among the words by parseArgs, which only
 * knows `--` options), `--output json` / `--output=json`, or `--json`. Returns the format and the words with
 * the `-o` pair removed. `table` (or `wide`) is the default; anything else is a UsageError.
 */
export function outputFormat(args: Args): { format: OutputFormat; words: string[] } {
  const words: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < args.words.length; i++) {
    const w = args.words[i] ?? "";
    if (w === "-o") {
      value = args.words[++i];
      if (value === undefined) throw new UsageError("-o needs a value (json or table)");
    } else if (w.startsWith("-o")) {
      value = w.slice(w.startsWith("-o=") ? 3 : 2);
    } else {
      words.push(w);
    }
  }
  const flag = args.flags.get("output");
  if (flag === true) throw new UsageError("--output needs a value (json or table)");
  if (flag !== undefined) value = flag;
  if (args.flags.get("json") === true) value = "json";
  if (value === undefined || value === "table" || value === "wide") return { format: "table", words };
  if (value === "json") return { format: "json", words };
  throw new UsageError(`unknown output format "${value}" (json or table)`);
}

/** Where a command writes: stdout and stderr lines. */
export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

/** console.log / console.error */
export const consoleIo: CommandIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};
