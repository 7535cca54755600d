// The light subpath @svc/native/memory: loads only the addon, so a process can tune its memory before the rest
// of it loads (the agent's memory-policy-early.ts).
import { loadBinding } from "./binding.ts";

/**
 * Tunes glibc's malloc for a small resident set: at most `arenaMax` arenas (threads that have none yet share
 * them instead of each getting its own), and allocations of `mmapThreshold` bytes or more in mappings of their
 * own, returned to the system when freed instead of staying in an arena. Returns false where malloc is not
 * glibc's (nothing is changed then). Throws a TypeError for arenaMax < 1 or mmapThreshold < 4096.
 */
export function tuneMalloc(arenaMax: number, mmapThreshold: number): boolean {
  return loadBinding().tuneMalloc(arenaMax, mmapThreshold);
}

/**
 * Unmaps this process's resident pages of the node executable that are clean file pages (read-only, never
 * copied on write): pages only start-up read (symbol tables for the dynamic linker, the start-up snapshot,
 * bootstrap code) stop counting in the process's RSS; the page cache keeps them, and a page still in use is
 * mapped again at its next access (a minor fault). Returns the bytes released, or 0 where /proc is unavailable.
 */
export function releaseExecutablePages(): number {
  try {
    return loadBinding().releaseExecutablePages();
  } catch (err) {
    // a system error (no /proc here): nothing was released
    if (typeof (err as { errno?: unknown }).errno === "number") return 0;
    throw err;
  }
}
