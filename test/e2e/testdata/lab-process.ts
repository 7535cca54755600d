import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Test helper: the repository root and the `svc` command. */
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const SVC_BIN = fileURLToPath(new URL("../../../apps/cli/bin/svc.mjs", import.meta.url));
/** Test helper: the cheapest lab: one agent in a namespace, no Prometheus, no console. */
export const LAB_ARGS = ["lab", "--agents", "1", "--no-prometheus", "--no-console"];

/** Test helper: a `svc lab` started through some command line, with its output and (once up) its index. */
export interface LabProcess {
  child: ChildProcess;
  output: () => string;
  /** the lab's index once `svc lab N is up` was printed */
  up: Promise<number>;
  exited: Promise<void>;
  /** the wrapper and every process below it when the lab came up (for cleaning up after a failed test) */
  tree: () => number[];
}

/** Test helper: starts `cmd args` (a `svc lab` or a wrapper of it) in the repository root. */
export function startLab(cmd: string, args: readonly string[], upWithinMs = 60_000): LabProcess {
  const child = spawn(cmd, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let tree: number[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const up = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`lab not up within ${upWithinMs} ms:\n${out}`)),
      upWithinMs,
    );
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /svc lab (\d+) is up/.exec(out);
      if (m) {
        clearTimeout(timer);
        if (tree.length === 0 && child.pid !== undefined) tree = descendants(child.pid);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before the lab was up:\n${out}`));
    });
  });
  up.catch(() => undefined);
  return { child, output: () => out, up, exited, tree: () => tree };
}

/** Test helper: the pid and parent pid of every process, from /proc. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      table.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  return table;
}

/** Test helper: `pid` and every process below it. */
export function descendants(pid: number): number[] {
  const table = processTable();
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const [child, parent] of table) if (parent === out[i]) out.push(child);
  }
  return out;
}

/** Test helper: the pid of the `svc lab` process among `root` and its descendants. */
export function labPid(root: number): number {
  for (const pid of descendants(root)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const svc = cmd.some((a) => a.endsWith("/svc.mjs") || a.endsWith("/.bin/svc"));
      if (svc && cmd.includes("lab") && cmd[0]?.endsWith("node")) return pid;
    } catch {
      // ended meanwhile
    }
  }
  throw new Error(`no svc lab process under ${root}`);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Test helper: whether lab `index`'s bridge, any of its namespaces, or its state file exist. */
export function labLeftovers(index: number, stateDir = "/tmp/svc-lab"): string[] {
  const left: string[] = [];
  if (existsSync(`/sys/class/net/svcbr${index}`)) left.push(`bridge svcbr${index}`);
  let namespaces: string[] = [];
  try {
    namespaces = readdirSync("/run/netns").filter((n) => n.startsWith(`svc${index}-`));
  } catch {
    // no namespaces at all
  }
  left.push(...namespaces.map((n) => `namespace ${n}`));
  if (existsSync(`${stateDir}/lab-${index}.json`)) left.push(`state lab-${index}.json`);
  return left;
}

/** Test helper: polls `cond` every 100 ms until true; fails after `ms` with `what`. */
export async function until(what: () => string, cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
