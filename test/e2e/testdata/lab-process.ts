import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  /** the temp folder the lab made its working directory in (its TMPDIR): remove it once the lab is gone */
  tmp: string;
}

/** Test helper: starts `cmd args` (a `svc lab` or a wrapper of it) in the repository root. */
export function startLab(
  cmd: string,
  args: readonly string[],
  upWithinMs = 60_000,
  env: NodeJS.ProcessEnv = process.env,
): LabProcess {
  // the lab's working directory goes into a temp folder of its own, which the test removes (tests leave no lab
  // directories behind)
  const tmp = mkdtempSync(join(tmpdir(), "svc-lab-test-"));
  const child = spawn(cmd, args, {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, TMPDIR: tmp },
  });
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
  return { child, output: () => out, up, exited, tree: () => tree, tmp };
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

/**
 * Test helper: what makes one lab's things its own, whatever other labs do with its index later (lab indexes and
 * bridge names are machine-wide, and a suite beside this one may clean up a killed lab and start its own on the
 * same index): the process in its state file (pid and start time), its bridge's ifindex, and for each namespace
 * it had the nsfs inode and the ifindex of its eth0's peer (the kernel hands a freed namespace's inode number to the
 * next namespace made, so an inode alone names a namespace only while it exists; a veth's ifindex is not reused).
 */
export interface LabIdentity {
  index: number;
  pid: number;
  pidStart?: string;
  bridgeIfindex?: number;
  /** namespace name -> its inode and the root-namespace ifindex of its eth0's peer */
  namespaces: Map<string, NamespaceIdentity>;
  stateDir: string;
}

function ifindexOf(index: number): number | undefined {
  try {
    return Number(readFileSync(`/sys/class/net/svcbr${index}/ifindex`, "utf8").trim());
  } catch {
    return undefined;
  }
}

/** Test helper: one namespace as it is now (peer: undefined when it has no eth0 veth). */
interface NamespaceIdentity {
  ino: number;
  peer?: number;
}

/** The root-namespace ifindex of the peer of `ns`'s eth0 (`ip -j link` gives it as link_index). */
function eth0Peer(ns: string): number | undefined {
  const r = spawnSync("ip", ["-j", "-n", ns, "link", "show", "eth0"], { encoding: "utf8", timeout: 10_000 });
  if (r.status !== 0) return undefined;
  try {
    const links = JSON.parse(r.stdout) as { link_index?: number }[];
    return links[0]?.link_index;
  } catch {
    return undefined;
  }
}

function namespacesOf(index: number): Map<string, number> {
  const out = new Map<string, number>();
  let names: string[] = [];
  try {
    names = readdirSync("/run/netns").filter((n) => n.startsWith(`svc${index}-`));
  } catch {
    // no namespaces at all
  }
  for (const n of names) {
    try {
      out.set(n, statSync(`/run/netns/${n}`).ino);
    } catch {
      // removed meanwhile
    }
  }
  return out;
}

function stateOf(
  index: number,
  stateDir: string,
): { pid: number; pidStart?: string; bridgeIfindex?: number } | undefined {
  try {
    return JSON.parse(readFileSync(`${stateDir}/lab-${index}.json`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Test helper: the identity of running lab `index`, from its state file and what exists now. */
export function labIdentity(index: number, stateDir = "/tmp/svc-lab"): LabIdentity {
  const s = stateOf(index, stateDir);
  if (s === undefined) throw new Error(`no state file for lab ${index} in ${stateDir}`);
  return {
    index,
    pid: s.pid,
    pidStart: s.pidStart,
    bridgeIfindex: s.bridgeIfindex,
    namespaces: new Map(
      [...namespacesOf(index)].map(([name, ino]) => [name, { ino, peer: eth0Peer(name) }] as const),
    ),
    stateDir,
  };
}

/**
 * Test helper: what of the lab `id` still exists: its bridge (same ifindex), its namespaces (same inode, unless its
 * eth0 now has another peer: a namespace another lab made that got the freed inode; one made after the identity was
 * taken counts while no other bridge holds the index) and its state file (naming its process).
 */
export function leftoversOf(id: LabIdentity): string[] {
  const left: string[] = [];
  const ifindex = ifindexOf(id.index);
  const taken = ifindex !== undefined && ifindex !== id.bridgeIfindex;
  if (ifindex !== undefined && !taken) left.push(`bridge svcbr${id.index}`);
  for (const [name, ino] of namespacesOf(id.index)) {
    const known = id.namespaces.get(name);
    const ours =
      known === undefined
        ? !taken
        : known.ino === ino && (known.peer === undefined || !taken || eth0Peer(name) === known.peer);
    if (ours) left.push(`namespace ${name}`);
  }
  const s = stateOf(id.index, id.stateDir);
  if (s !== undefined && s.pid === id.pid && s.pidStart === id.pidStart)
    left.push(`state lab-${id.index}.json`);
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
