import { readFileSync } from "node:fs";

/** Signals that stop a foreground command such as `svc lab`: Ctrl-C, `kill`, the terminal going away. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** How often the ancestors are looked at, ms. */
const ANCESTOR_POLL_MS = 500;

interface ProcessIdentity {
  pid: number;
  /** start time in clock ticks since boot: a reused pid is another process */
  start: string;
}

/** Parent pid and start time of `pid` from /proc, or undefined when it is gone (or there is no /proc). */
function procStat(pid: number): { ppid: number; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: count the fields after its closing ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19];
    return start === undefined ? undefined : { ppid: Number(fields[1]), start };
  } catch {
    return undefined;
  }
}

/** This process's ancestors, parent first, up to (not including) pid 1. */
export function ancestors(): ProcessIdentity[] {
  const out: ProcessIdentity[] = [];
  let pid = procStat(process.pid)?.ppid ?? 0;
  while (pid > 1 && out.length < 64) {
    const s = procStat(pid);
    if (s === undefined) break;
    out.push({ pid, start: s.start });
    pid = s.ppid;
  }
  return out;
}

/**
 * Calls `stop` (with the reason) on SIGINT, SIGTERM or SIGHUP, and when a process it was started under ends (an
 * ancestor up to pid 1, watched every 500 ms). The second watch covers wrappers that end without passing a signal
 * on: `npm run svc -- lab` and `npx svc lab` run svc under `sh -c`, and npm forwards SIGTERM to that shell (which
 * ends without passing it on) and nothing on SIGHUP, so svc itself would never hear of it. A later signal calls
 * `stop` again (the caller ignores repeats), so a second Ctrl-C does not end the process in the middle of its
 * cleanup. Returns the function that removes both.
 */
export function onStopRequest(stop: (reason: string) => void): () => void {
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = (): void => stop(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  const watched = ancestors();
  const timer = setInterval(() => {
    const gone = watched.find((a) => procStat(a.pid)?.start !== a.start);
    if (gone !== undefined) stop(`process ${gone.pid} it was started under is gone`);
  }, ANCESTOR_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}
