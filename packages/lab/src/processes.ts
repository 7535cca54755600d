import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";

/** A long-running child process of the lab, its output appended to a log file. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** resolves with the exit code (or signal name) when the process ends */
  exited: Promise<number | string>;
}

/**
 * Starts a child whose stdin is a pipe held by the lab: svc processes started with SVC_EXIT_WITH_STDIN=1 exit when
 * it closes, so nothing outlives a lab that was killed outright.
 */
export function startProcess(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; logFile: string },
): ManagedProcess {
  const log: WriteStream = createWriteStream(opts.logFile, { flags: "a" });
  const child = spawn(cmd, args, {
    env: { ...process.env, ...opts.env, SVC_EXIT_WITH_STDIN: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  // the log ends once the child's output is closed, not at its exit: output still in the pipes at the exit is
  // written after it (ending at the exit once failed a suite: "write after end")
  child.once("close", () => {
    if (!log.writableEnded) log.end();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.once("error", (err) => {
      if (!log.writableEnded) log.end(`spawn failed: ${err.message}\n`);
      resolve("spawn-error");
    });
  });
  return { name, child, logFile: opts.logFile, exited };
}

/** Stops a process: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
export async function stopProcess(p: ManagedProcess, graceMs = 5000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/**
 * Polls `check` until it resolves true or `timeoutMs` passes. When `process` is given and exits first, fails at
 * once naming its log file; when `signal` aborts, fails at once too.
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  process?: ManagedProcess,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted) throw new Error(`stopped while waiting for ${what}`);
    const code = process?.child.exitCode ?? process?.child.signalCode;
    if (process && code !== null && code !== undefined) {
      throw new Error(`${process.name} exited (${code}) while waiting for ${what}; see ${process.logFile}`);
    }
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** True when an HTTP GET of `url` answers 200. */
export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status === 200;
}
