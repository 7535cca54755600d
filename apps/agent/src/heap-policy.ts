// the light subpath (node:v8 only): this module is evaluated before the rest of the agent (memory-policy-early.ts)
import { applyHeapPolicy } from "@svc/core/heap-policy";

/**
 * The agent's V8 flags, set first thing when `svc agent` starts (docs/decisions.md, "Memory (agent)"). The agent
 * runs on every node, so its resident memory is paid N times over. By default V8 lets the young generation grow
 * to 32 MiB (twice 16 MiB semi-spaces) and old space to 2-4x the live heap between major collections; the
 * agent's live heap is 15-40 MiB and almost everything it allocates dies young.
 * - `--semi-space-growth-factor=1`: the young generation keeps its initial 1 MiB semi-spaces (more scavenges,
 *   each cheaper, since little survives);
 * - `--heap-growing-percent=25`: after a major collection old space may grow by 25 % of what survived;
 * - `--no-opt`: no TurboFan. Its compilations run on V8's worker threads, each of which then keeps a malloc
 *   arena, and touch megabytes of the compiler's own code; at 100 peers that was ~10 MiB of RSS. The probe path
 *   is cheap enough in V8's baseline tiers (bench/agent-footprint: CPU within the targets at 100 and 1000 peers).
 * Operator flags take precedence (see @svc/core applyHeapPolicy): `--opt` on the command line or in
 * NODE_OPTIONS brings TurboFan back.
 */
export const AGENT_HEAP_FLAGS: readonly string[] = [
  "--semi-space-growth-factor=1",
  "--heap-growing-percent=25",
  "--no-opt",
];

/** Applies the agent's policy to this process; returns the flags it set. */
export function applyAgentHeapPolicy(given?: readonly string[]): string[] {
  return applyHeapPolicy(AGENT_HEAP_FLAGS, given);
}
