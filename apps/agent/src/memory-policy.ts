// Light imports only (node:v8 and the addon): this module is evaluated before the rest of the agent
// (memory-policy-early.ts).
import { releaseExecutablePages, tuneMalloc } from "@svc/native/memory";
import { applyAgentHeapPolicy } from "./heap-policy.ts";

/** malloc arenas the agent's threads share (glibc's default is 8 per core). */
export const MALLOC_ARENA_MAX = 1;
/** Allocations this large or larger get their own mapping, returned to the system when freed. */
export const MALLOC_MMAP_THRESHOLD = 64 * 1024;
/** When the node executable's pages are released again after start-up, ms after it, then how often. */
export const PAGE_RELEASE_FIRST_MS = 30_000;
export const PAGE_RELEASE_EVERY_MS = 10 * 60_000;

export interface AppliedMemoryPolicy {
  /** V8 flags set (those the operator did not set differently) */
  flags: string[];
  /** whether glibc's malloc was tuned (false on other C libraries) */
  malloc: boolean;
  /** bytes of the node executable's pages released from the resident set when the policy was applied */
  releasedBytes: number;
}

/** What the first call did; the policy is applied once per process. */
let applied: AppliedMemoryPolicy | undefined;

/**
 * The agent's memory policy (docs/decisions.md, "Memory (agent)"): its V8 flags, malloc tuned for a small
 * resident set, and the pages of the node executable that start-up read released from the resident set, now,
 * 30 s later (after the agent's own loading and first probe rounds) and every 10 minutes after that (code run
 * once, such as a reload's, is not kept mapped). Applied once per process: a later call (runAgent's, after the
 * bundle's memory-policy-early.ts) returns what the first did. A test gives a shorter schedule.
 */
export function applyAgentMemoryPolicy(
  schedule: { firstMs: number; everyMs: number } = {
    firstMs: PAGE_RELEASE_FIRST_MS,
    everyMs: PAGE_RELEASE_EVERY_MS,
  },
): AppliedMemoryPolicy {
  if (applied) return applied;
  applied = {
    flags: applyAgentHeapPolicy(),
    malloc: tuneMalloc(MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD),
    releasedBytes: releaseExecutablePages(),
  };
  setTimeout(() => {
    releaseExecutablePages();
    setInterval(releaseExecutablePages, schedule.everyMs).unref();
  }, schedule.firstMs).unref();
  return applied;
}
