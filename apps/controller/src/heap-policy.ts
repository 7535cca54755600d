import { setFlagsFromString } from "node:v8";

/**
 * The controller's garbage-collection policy, set when `svc controller` starts. Node sizes the V8 heap from the
 * machine's memory, and by default V8 lets old space grow to 2-4x the live heap between major collections and the
 * young generation grow to 32 MiB: at 5000 agents, ~100 MiB live became 500-650 MiB RSS. Both flags are read at
 * each collection, so setting them after start-up takes effect:
 * - `--heap-growing-percent=25`: after a major collection old space may grow by 25 % of what survived;
 * - `--semi-space-growth-factor=1`: the young generation keeps its initial size (more, cheaper scavenges).
 * Unlike a heap cap (`--max-old-space-size`) this never makes the process run out of memory: a larger fleet just
 * gets a larger heap. An operator's own node flags (NODE_OPTIONS or the command line) naming either flag, or a heap
 * cap, take precedence: that flag is then left as the operator set it.
 */
export const CONTROLLER_HEAP_FLAGS: readonly string[] = [
  "--heap-growing-percent=25",
  "--semi-space-growth-factor=1",
];

/** Flags that, given by the operator, replace the policy's flag of the same name (a heap cap replaces both). */
function overridden(flag: string, given: readonly string[]): boolean {
  const name = flag.split("=")[0] ?? flag;
  const norm = (f: string) => f.replace(/_/g, "-");
  return given.some((g) => {
    const n = norm(g);
    return (
      n.startsWith(name) || n.startsWith("--max-old-space-size") || n.startsWith("--max-semi-space-size")
    );
  });
}

/** The policy flags not overridden by `given` (the operator's node flags). */
export function heapFlagsToApply(flags: readonly string[], given: readonly string[]): string[] {
  return flags.filter((f) => !overridden(f, given));
}

/** Applies the policy to this process; returns the flags it set. */
export function applyHeapPolicy(
  flags: readonly string[] = CONTROLLER_HEAP_FLAGS,
  given: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)],
): string[] {
  const apply = heapFlagsToApply(flags, given);
  for (const f of apply) setFlagsFromString(f);
  return apply;
}
