import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What another `svc lab ...` invocation needs to act on a running lab. */
export interface LabState {
  pid: number;
  /** start time of `pid` (/proc/<pid>/stat field 22), so a reused pid does not pass for the lab */
  pidStart?: string;
  index: number;
  /**
   * ifindex of the lab's bridge (svcbr<index>): bridge names are machine-wide and reused, so `svc lab down` takes
   * a bridge for this lab's only while its ifindex is this one
   */
  bridgeIfindex?: number;
  dir: string;
  netns: boolean;
  controllerUrl: string;
  prometheusUrl?: string;
  /** the rule evaluator when it is not the query endpoint (vmalert) */
  evaluatorUrl?: string;
  nodes: {
    name: string;
    namespace: string;
    address: string;
    tcpPort: number;
    udpPort: number;
    zone?: string;
  }[];
  /** the faults in place (`svc lab status`), as `svc lab fault` words, with when each began */
  faults?: { words: string; since: string }[];
  /**
   * the lab process's control listener (127.0.0.1): `svc lab fault`, `heal` and `status` go through it, so the
   * faults that need the lab's own process (a stopped agent, a flapping link) work from another terminal
   */
  control?: { url: string; token: string };
}

/** Directory holding one state file per running lab (named by lab index). */
export const STATE_DIR = process.env.SVC_LAB_STATE_DIR ?? "/tmp/svc-lab";

/** Writes the state of a lab atomically (readers never see half a file); only its owner reads it (control token). */
export function writeState(state: LabState): void {
  mkdirSync(STATE_DIR, { recursive: true });
  const file = join(STATE_DIR, `lab-${state.index}.json`);
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/**
 * Removes the state file of lab `owner.index` when it still names `owner`'s process (pid and start time): after a
 * lab's network is gone its index is free, and another lab may already have written its own state under it.
 */
export function removeState(owner: Pick<LabState, "index" | "pid" | "pidStart">): void {
  const file = join(STATE_DIR, `lab-${owner.index}.json`);
  let now: LabState;
  try {
    now = JSON.parse(readFileSync(file, "utf8")) as LabState;
  } catch {
    return; // gone, or half a file of a writer (writeState renames, so never ours)
  }
  if (now.pid === owner.pid && now.pidStart === owner.pidStart) rmSync(file, { force: true });
}

/** Every lab state file, running or not (unreadable files are skipped). */
export function allStates(): LabState[] {
  let files: string[];
  try {
    files = readdirSync(STATE_DIR).filter((f) => /^lab-\d+\.json$/.test(f));
  } catch {
    return [];
  }
  return files.flatMap((f) => {
    try {
      return [JSON.parse(readFileSync(join(STATE_DIR, f), "utf8")) as LabState];
    } catch {
      return [];
    }
  });
}

/** The states of labs whose process is still running. */
export function liveStates(): LabState[] {
  return allStates().filter(isLive);
}

/** Reads the state of lab `index`, or of the only running lab when index is undefined. */
export function readState(index?: number): LabState {
  const states = liveStates();
  const chosen = index === undefined ? states : states.filter((s) => s.index === index);
  if (chosen.length === 0) throw new Error("no running lab found (start one with `svc lab`)");
  if (chosen.length > 1) {
    throw new Error(`several labs are running (${chosen.map((s) => s.index).join(", ")}): pass --lab INDEX`);
  }
  return chosen[0]!;
}

/** Start time of process `pid` in clock ticks since boot, or undefined when it does not exist. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: count fields after its closing ")"
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** True while process `pid` runs (the same process: its start time matches when `pidStart` is given). */
export function processRuns(pid: number, pidStart?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return pidStart === undefined || processStart(pid) === pidStart;
}

/** True while the lab's process runs (the same process: its start time matches when recorded). */
export function isLive(state: LabState): boolean {
  return processRuns(state.pid, state.pidStart);
}
