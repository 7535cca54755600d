/** Parsed command line: positional words and `--flag value` / `--flag` options. */
export interface Args {
  words: string[];
  flags: Map<string, string | true>;
}

/** Flags that never take a value. */
const BOOLEAN_FLAGS = new Set(["help", "no-netns", "no-prometheus", "all", "allow-loopback-agents", "json"]);

export function parseArgs(argv: readonly string[]): Args {
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) {
        flags.set(a.slice(2, eq), a.slice(eq + 1));
      } else if (BOOLEAN_FLAGS.has(a.slice(2)) || i + 1 >= argv.length || argv[i + 1]!.startsWith("--")) {
        flags.set(a.slice(2), true);
      } else {
        flags.set(a.slice(2), argv[++i]!);
      }
    } else if (a === "-h") {
      flags.set("help", true);
    } else {
      words.push(a);
    }
  }
  return { words, flags };
}

/** A string flag, or undefined; errors when given without a value. */
export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

/** Rejects flags the command does not know. */
export function allowFlags(args: Args, allowed: readonly string[]): void {
  for (const k of args.flags.keys()) {
    if (!allowed.includes(k) && k !== "help") throw new UsageError(`unknown option --${k}`);
  }
}

/** A command-line mistake: printed with the usage text, exit code 1. */
export class UsageError extends Error {}
