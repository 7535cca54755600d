/**
 * Memory cgroups for benchmarks: a process measured as Kubernetes measures a container. The kubelet limits,
 * evicts and OOM-kills on the cgroup's working set: usage minus inactive file pages (v1: memory.usage_in_bytes
 * minus total_inactive_file of memory.stat; v2: memory.current minus inactive_file). Page-cache pages are
 * charged to the cgroup that first faulted them in, so a process whose executable is already cached by another
 * cgroup does not pay for those pages (`freshCopy` makes one that does, as in a fresh pod).
 *
 * Needs root and a writable cgroup file system (v1 memory controller at /sys/fs/cgroup/memory, or v2 when
 * /sys/fs/cgroup/cgroup.controllers exists); `openMemoryCgroup` says why when it cannot make one.
 */
import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

const ROOT = "/sys/fs/cgroup";
/** The cgroups this bench made and has not removed: an interrupted bench (SIGINT, SIGTERM) removes them. */
const open = new Set<MemoryCgroup>();
let cleanupInstalled = false;

/** One sample of a memory cgroup, bytes. */
export interface CgroupMemory {
  /** memory.usage_in_bytes (v1) / memory.current (v2): everything charged, page cache included */
  usage: number;
  /** usage minus inactive file pages: what the kubelet compares with the limit */
  workingSet: number;
  /** anonymous memory (memory.stat total_rss / anon) */
  anon: number;
  activeFile: number;
  inactiveFile: number;
}

export class MemoryCgroup {
  readonly #dir: string;
  readonly version: 1 | 2;

  private constructor(dir: string, version: 1 | 2) {
    this.#dir = dir;
    this.version = version;
  }

  /** The cgroup's directory. */
  get path(): string {
    return this.#dir;
  }

  /**
   * Makes a fresh memory cgroup `svc-bench-<name>-<pid>` at the root of the hierarchy with the given limit, or
   * returns the reason it cannot.
   */
  static open(name: string, limitBytes: number): MemoryCgroup | string {
    const v2 = existsSync(`${ROOT}/cgroup.controllers`);
    const base = v2 ? ROOT : `${ROOT}/memory`;
    if (!existsSync(base)) return `no memory cgroup controller at ${base}`;
    const dir = join(base, `svc-bench-${name}-${process.pid}`);
    try {
      if (v2) {
        const enabled = readFileSync(`${ROOT}/cgroup.subtree_control`, "utf8");
        if (!enabled.split(/\s+/).includes("memory"))
          writeFileSync(`${ROOT}/cgroup.subtree_control`, "+memory");
      }
      if (!existsSync(dir)) mkdirSync(dir);
      writeFileSync(join(dir, v2 ? "memory.max" : "memory.limit_in_bytes"), String(limitBytes));
      if (v2) {
        // no swap for the measured process, as the kubelet runs pods by default
        try {
          writeFileSync(join(dir, "memory.swap.max"), "0");
        } catch {
          // no swap accounting: nothing to turn off
        }
      }
    } catch (err) {
      return `cannot make a memory cgroup at ${dir}: ${(err as Error).message}`;
    }
    const cg = new MemoryCgroup(dir, v2 ? 2 : 1);
    open.add(cg);
    if (open.size === 1 && !cleanupInstalled) {
      cleanupInstalled = true;
      for (const sig of ["SIGINT", "SIGTERM"] as const) {
        process.once(sig, () => {
          process.stderr.write(`bench: ${sig}: removing ${open.size} cgroup(s) and what runs in them\n`);
          void Promise.all([...open].map((c) => c.remove())).then(() => process.exit(130));
        });
      }
    }
    return cg;
  }

  /**
   * Spawns `cmd args` inside the cgroup: a shell moves itself into it and then execs the command, so the
   * command's first page is charged here and the returned child's pid is the command's.
   */
  spawn(cmd: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
    return spawn(
      "/bin/sh",
      ["-c", 'echo $$ > "$0" && exec "$@"', join(this.#dir, "cgroup.procs"), cmd, ...args],
      {
        stdio: ["ignore", "ignore", "inherit"],
        ...options,
      },
    );
  }

  /**
   * Moves a running process (all its threads) into the cgroup. What it allocated before stays charged where it
   * was (v2 never moves charges; v1's memory.move_charge_at_immigrate is gone from recent kernels): prefer
   * `spawn`, which starts the process inside.
   */
  adopt(pid: number): void {
    writeFileSync(join(this.#dir, "cgroup.procs"), String(pid));
  }

  /** Pids in the cgroup now. */
  pids(): number[] {
    try {
      return readFileSync(join(this.#dir, "cgroup.procs"), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map(Number);
    } catch {
      return [];
    }
  }

  /**
   * CPU time so far of the threads of the processes in the cgroup now, ms: the scheduler's nanosecond run time
   * (/proc/<pid>/task/<tid>/schedstat), not /proc/<pid>/stat's 10 ms ticks, so a 10 s window of a process using
   * 1 ms/s reads right.
   */
  cpuMs(): number {
    let ns = 0;
    for (const pid of this.pids()) {
      try {
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        }
      } catch {
        // exited between the listing and the read
      }
    }
    return ns / 1e6;
  }

  memory(): CgroupMemory {
    const v2 = this.version === 2;
    const usage = Number(
      readFileSync(join(this.#dir, v2 ? "memory.current" : "memory.usage_in_bytes"), "utf8"),
    );
    const stat = readFileSync(join(this.#dir, "memory.stat"), "utf8");
    const field = (key: string) => Number(new RegExp(`^${key} (\\d+)`, "m").exec(stat)?.[1] ?? 0);
    const inactiveFile = field(v2 ? "inactive_file" : "total_inactive_file");
    return {
      usage,
      workingSet: Math.max(0, usage - inactiveFile),
      anon: field(v2 ? "anon" : "total_rss"),
      activeFile: field(v2 ? "active_file" : "total_active_file"),
      inactiveFile,
    };
  }

  /** Whether the kernel OOM-killed anything in this cgroup (the limit was too small). */
  oomKills(): number {
    try {
      if (this.version === 2) {
        return Number(
          /^oom_kill (\d+)/m.exec(readFileSync(join(this.#dir, "memory.events"), "utf8"))?.[1] ?? 0,
        );
      }
      return Number(
        /^oom_kill (\d+)/m.exec(readFileSync(join(this.#dir, "memory.oom_control"), "utf8"))?.[1] ?? 0,
      );
    } catch {
      return 0;
    }
  }

  /** Kills what still runs in the cgroup (SIGKILL) and removes it; its charges move to the parent. */
  async remove(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const pids = this.pids();
      if (pids.length === 0) break;
      for (const p of pids) {
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // gone
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    open.delete(this);
    try {
      rmdirSync(this.#dir);
    } catch (err) {
      process.stderr.write(`bench: could not remove ${this.#dir}: ${(err as Error).message}\n`);
    }
  }
}

/**
 * A private copy of the node executable in a new directory on disk (not tmpfs): its pages are in no page cache
 * yet, so the first process to run it pays for them in its cgroup, as the first container on a node does.
 * Returns the copy's path and a function removing it.
 */
export function freshCopy(executable: string, dirBase: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(dirBase, "svc-bench-node-"));
  const path = join(dir, "node");
  // O_DIRECT: the copy's pages do not enter the page cache (charged to this process's cgroup) as it is written
  execFileSync("dd", [`if=${executable}`, `of=${path}`, "bs=1M", "oflag=direct", "status=none"]);
  chmodSync(path, 0o755);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
