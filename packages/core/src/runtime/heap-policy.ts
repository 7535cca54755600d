import { setFlagsFromString } from "node:v8";

/**
 * A process's heap policy: V8 flags set at start-up with v8.setFlagsFromString. The flags used
 * (`--heap-growing-percent`, `--semi-space-growth-factor`) are read at each collection, and `--no-opt` whenever
 * a function gets hot, so setting them after start-up takes effect (and `--semi-space-growth-factor=1` only
 * works that way in Node 20's V8: given on the command line, the young generation still grows to 32 MiB). An operator's own node flags (NODE_OPTIONS or the
 * command line) naming a policy flag, or a heap cap, take precedence: that flag is left as the operator set it.
 */

/** A flag's name without its value, `--no-` prefix and underscores: `--no_opt` and `--opt` are both `opt`. */
function baseName(flag: string): string {
  return (flag.split("=")[0] ?? flag).replace(/_/g, "-").replace(/^--(no-)?/, "");
}

const HEAP_CAPS = ["max-old-space-size", "max-semi-space-size"];

/**
 * Flags that, given by the operator, replace the policy's flag of the same name (either polarity); a heap cap
 * replaces every heap-sizing flag of the policy.
 */
function overridden(flag: string, given: readonly string[]): boolean {
  const name = baseName(flag);
  const sizing = name.includes("space") || name.includes("heap");
  return given.some((g) => {
    const n = baseName(g);
    return n === name || (sizing && HEAP_CAPS.includes(n));
  });
}

/** The policy flags not overridden by `given` (the operator's node flags). */
export function heapFlagsToApply(flags: readonly string[], given: readonly string[]): string[] {
  return flags.filter((f) => !overridden(f, given));
}

/** Applies a policy to this process; returns the flags it set. */
export function applyHeapPolicy(
  flags: readonly string[],
  given: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)],
): string[] {
  const apply = heapFlagsToApply(flags, given);
  for (const f of apply) setFlagsFromString(f);
  return apply;
}
