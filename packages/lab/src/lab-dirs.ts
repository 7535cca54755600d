/**
 * A lab's working directory (configs, logs, Prometheus data) in the system temp folder, and the pruning that keeps
 * those from piling up: each lab that makes its own directory removes, before it starts, every older lab directory
 * beyond the newest `keep`, except those of running labs. A lab directory is a `svc-lab-XXXXXX` directory holding
 * `lab.owner` (the pid and start time of the lab that made it; a reused pid is another process), written the moment
 * the directory is made, so a lab starting beside another never takes the other's directory for a gone lab's.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveStates, processRuns, processStart } from "./state.ts";

/** Lab directories kept by default: the newest five, and every running lab's. */
export const LAB_DIRS_KEPT = 5;

const OWNER = "lab.owner";
const NAME = /^svc-lab-[A-Za-z0-9]{6}$/;

/** Writes this process into `dir` as its owner. */
export function claimLabDir(dir: string): void {
  writeFileSync(
    join(dir, OWNER),
    `${JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid) })}\n`,
  );
}

function owner(dir: string): { pid: number; pidStart?: string } | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, OWNER), "utf8")) as { pid?: unknown; pidStart?: unknown };
    if (typeof o.pid !== "number") return undefined;
    return typeof o.pidStart === "string" ? { pid: o.pid, pidStart: o.pidStart } : { pid: o.pid };
  } catch {
    return undefined;
  }
}

/**
 * Removes the lab directories under `parent` beyond the newest `keep` (by modification time) whose lab is not
 * running (its owner's process is gone, and no running lab's state names the directory). Directories without
 * `lab.owner` (not a lab's, or a lab's from before owners were written) and any other name are left alone.
 * Resolves with the directories removed.
 */
export function pruneLabDirs(parent: string, keep = LAB_DIRS_KEPT): string[] {
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => NAME.test(n));
  } catch {
    return [];
  }
  const live = new Set(liveStates().map((s) => s.dir));
  const labs = names.flatMap((n) => {
    const dir = join(parent, n);
    const o = owner(dir);
    if (o === undefined) return [];
    try {
      return [
        { dir, mtime: statSync(dir).mtimeMs, running: live.has(dir) || processRuns(o.pid, o.pidStart) },
      ];
    } catch {
      return [];
    }
  });
  labs.sort((a, b) => b.mtime - a.mtime);
  const removed: string[] = [];
  for (const l of labs.slice(keep)) {
    if (l.running) continue;
    rmSync(l.dir, { recursive: true, force: true });
    removed.push(l.dir);
  }
  return removed;
}

/** Makes a new lab directory under `parent`, owned by this process, after pruning the old ones to `keep`. */
export function newLabDir(parent: string, keep = LAB_DIRS_KEPT): string {
  const dir = mkdtempSync(join(parent, "svc-lab-"));
  claimLabDir(dir);
  pruneLabDirs(parent, keep);
  return dir;
}
