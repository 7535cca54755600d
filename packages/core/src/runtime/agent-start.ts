/**
 * How `svc agent` is started: node flags and environment an operator sees in the start command (the lab's,
 * the container spec's), chosen by measurement in a 128 MiB memory cgroup (bench/agent-footprint;
 * docs/decisions.md, "Memory (agent)"). Nothing of this is applied by the agent to itself.
 *
 * The flags go on node's command line (`node <flags> apps/agent/dist/agent.mjs ...`): node refuses `--no-opt`
 * and `--heap-growing-percent` in NODE_OPTIONS. The environment must be set before node starts (glibc reads it
 * once, at the first allocation).
 */
export const AGENT_NODE_FLAGS: readonly string[] = [
  // young generation at 1 MiB semi-spaces instead of growing to 16 MiB ones
  "--max-semi-space-size=1",
  // after a major collection old space may grow by 25 % of what survived
  "--heap-growing-percent=25",
  // no TurboFan: ~9-11 MiB less working set for ~15 % more CPU
  "--no-opt",
];

/** glibc malloc: one arena for all threads; allocations of 64 KiB or more in mappings returned on free. */
export const AGENT_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "1",
  MALLOC_MMAP_THRESHOLD_: "65536",
};
