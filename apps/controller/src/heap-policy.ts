import { applyHeapPolicy as apply } from "@svc/core/heap-policy";

export { heapFlagsToApply } from "@svc/core/heap-policy";

/**
 * The controller's garbage-collection policy, set when `svc controller` starts. Node sizes the V8 heap from the
 * machine's memory, and by default V8 lets old space grow to 2-4x the live heap between major collections and the
 * young generation grow to 32 MiB: at 5000 agents, ~100 MiB live became 500-650 MiB RSS.
 * - `--heap-growing-percent=25`: after a major collection old space may grow by 25 % of what survived;
 * - `--semi-space-growth-factor=1`: the young generation keeps its initial size (more, cheaper scavenges).
 * Unlike a heap cap (`--max-old-space-size`) this never makes the process run out of memory: a larger fleet just
 * gets a larger heap. Operator flags take precedence (see @svc/core applyHeapPolicy).
 */
export const CONTROLLER_HEAP_FLAGS: readonly string[] = [
  "--heap-growing-percent=25",
  "--semi-space-growth-factor=1",
];

/** Applies the controller's policy (or `flags`) to this process; returns the flags it set. */
export function applyHeapPolicy(
  flags: readonly string[] = CONTROLLER_HEAP_FLAGS,
  given?: readonly string[],
): string[] {
  return apply(flags, given);
}
