import { readFileSync } from "node:fs";

/** Signals that stop a foreground command such as `svc lab`: Ctrl-C, `kill`, the terminal going away. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** How often the wrappers and the terminal are looked at, ms. */
const POLL_MS = 500;

interface ProcessIdentity {
  pid: number;
  /** start time in clock ticks since boot: a reused pid is another process */
  start: string;
}

interface ProcStat {
  ppid: number;
  pgrp: number;
  /** controlling terminal (0: none) */
  tty: number;
  /** foreground process group of that terminal (-1: none) */
  tpgid: number;
  start: string;
}

/** Fields of /proc/<pid>/stat, or undefined when it is gone (or there is no /proc). */
function procStat(pid: number | "self"): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: count the fields after its closing ")"
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = f[19];
    if (start === undefined) return undefined;
    return { ppid: Number(f[1]), pgrp: Number(f[2]), tty: Number(f[4]), tpgid: Number(f[5]), start };
  } catch {
    return undefined;
  }
}

/** The arguments of `pid` ([] when gone). npm rewrites its title, so its argv[0] reads e.g. "npm exec svc lab". */
function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

const base = (arg: string | undefined) => (arg ?? "").split(" ")[0]?.split("/").pop() ?? "";

/** An npm or npx process: its title (`npm exec ...`, `npm run ...`), or node running npm's or npx's CLI script. */
function isNpm(argv: readonly string[]): boolean {
  const first = base(argv[0]);
  if (first === "npm" || first === "npx") return true;
  return /^node(js)?$/.test(first) && /^(npm|npx)(-cli\.js)?$/.test(base(argv[1]));
}

/** A `sh -c ...` (the shell npm runs a script or a package's binary in). */
const isShellC = (argv: readonly string[]) => /^(sh|bash|dash|zsh)$/.test(base(argv[0])) && argv[1] === "-c";

/** This process's ancestors, parent first, up to (not including) pid 1. */
export function ancestors(): ProcessIdentity[] {
  const out: ProcessIdentity[] = [];
  let pid = procStat("self")?.ppid ?? 0;
  while (pid > 1 && out.length < 64) {
    const s = procStat(pid);
    if (s === undefined) break;
    out.push({ pid, start: s.start });
    pid = s.ppid;
  }
  return out;
}

/**
 * The wrappers this process runs under, parent first: the unbroken chain of npm / npx processes and the `sh -c`
 * shells npm starts, from the parent up to the first process that is neither (the user's shell, a script, a
 * service manager). `svc lab` run directly has none.
 */
export function wrappers(): ProcessIdentity[] {
  const all = ancestors();
  const out: ProcessIdentity[] = [];
  for (let i = 0; i < all.length; i++) {
    const a = all[i] as ProcessIdentity;
    const argv = cmdline(a.pid);
    const next = all[i + 1];
    if (isNpm(argv) || (isShellC(argv) && next !== undefined && isNpm(cmdline(next.pid)))) out.push(a);
    else break;
  }
  return out;
}

/** True while this process is in a background process group of its controlling terminal (`&`, `bg`, nohup &). */
function inBackground(s: ProcStat | undefined): boolean | undefined {
  if (s === undefined || s.tty === 0 || s.tpgid <= 0) return undefined; // no terminal (any more)
  return s.tpgid !== s.pgrp;
}

/**
 * Calls `stop` (with the reason) on SIGINT, SIGTERM or SIGHUP, and when a wrapper it runs under ends (watched every
 * 500 ms). The wrappers are the npm / npx processes and their `sh -c` (wrappers()): `npm run svc -- lab` and
 * `npx svc lab` run svc under `sh -c`, and npm forwards SIGTERM to that shell (which ends without passing it on)
 * and nothing on SIGHUP, so svc itself would never hear of it. Processes above the wrappers are not watched: a
 * script that started the lab in the background (`nohup npx svc lab > lab.log 2>&1 &`) may end and the lab stays.
 *
 * SIGHUP stops the lab unless it was, when last seen attached to its terminal, in a background process group of it:
 * closing a terminal sends SIGHUP to its foreground group (a lab there stops), while an interactive shell resends it
 * to its background jobs on exit, which is what `nohup ... &` asks to survive (node resets the SIG_IGN nohup sets,
 * so the lab cannot see it); such a SIGHUP is passed to `ignored` instead. A SIGHUP to a lab without a terminal (a
 * `kill -HUP`, a service manager) stops it. A later signal calls `stop` again (the caller ignores repeats), so a
 * second Ctrl-C does not end the process in the middle of its cleanup. Returns the function that removes all this.
 */
export function onStopRequest(
  stop: (reason: string) => void,
  ignored: (reason: string) => void = () => {},
): () => void {
  let background = inBackground(procStat("self")) ?? false;
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = (): void => {
      if (sig === "SIGHUP" && (inBackground(procStat("self")) ?? background)) {
        ignored("SIGHUP ignored: the lab runs in the background of a terminal (stop it with kill -TERM)");
        return;
      }
      stop(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  const watched = wrappers();
  const timer = setInterval(() => {
    background = inBackground(procStat("self")) ?? background;
    const gone = watched.find((a) => procStat(a.pid)?.start !== a.start);
    if (gone !== undefined) stop(`wrapper process ${gone.pid} it was started under is gone`);
  }, POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}
