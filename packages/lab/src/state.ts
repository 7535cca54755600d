import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What another `svc lab ...` invocation needs to act on a running lab. */
export interface LabState {
  pid: number;
  index: number;
  dir: string;
  netns: boolean;
  controllerUrl: string;
  prometheusUrl?: string;
  nodes: { name: string; namespace: string; address: string; tcpPort: number; udpPort: number }[];
}

/** Directory holding one state file per running lab (named by lab index). */
export const STATE_DIR = process.env.SVC_LAB_STATE_DIR ?? "/tmp/svc-lab";

export function writeState(state: LabState): void {
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(join(STATE_DIR, `lab-${state.index}.json`), `${JSON.stringify(state, null, 2)}\n`);
}

export function removeState(index: number): void {
  rmSync(join(STATE_DIR, `lab-${index}.json`), { force: true });
}

/** Reads the state of lab `index`, or of the only running lab when index is undefined. */
export function readState(index?: number): LabState {
  let files: string[];
  try {
    files = readdirSync(STATE_DIR).filter((f) => /^lab-\d+\.json$/.test(f));
  } catch {
    files = [];
  }
  const states = files
    .map((f) => JSON.parse(readFileSync(join(STATE_DIR, f), "utf8")) as LabState)
    .filter((s) => isAlive(s.pid));
  const chosen = index === undefined ? states : states.filter((s) => s.index === index);
  if (chosen.length === 0) throw new Error("no running lab found (start one with `svc lab`)");
  if (chosen.length > 1) {
    throw new Error(`several labs are running (${chosen.map((s) => s.index).join(", ")}): pass --lab INDEX`);
  }
  return chosen[0]!;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
