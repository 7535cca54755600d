import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Options of {@link runInNamespace}. */
export interface RunInNamespaceOptions {
  /** kill the child after this long (default 60 s) */
  timeoutMs?: number;
  /** extra environment for the child */
  env?: Record<string, string>;
}

/** The repository root (where node_modules/tsx lives), so `--import tsx` resolves from any caller. */
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * Runs a TypeScript script inside a network namespace: `ip netns exec NS node --import tsx SCRIPT ...args`.
 * Resolves with the last non-empty stdout line parsed as JSON; rejects with the command, exit status and stderr
 * when the child fails, times out or prints no JSON. `namespace` "" runs in the current namespace.
 */
export function runInNamespace<T = unknown>(
  namespace: string,
  script: string,
  args: readonly string[] = [],
  opts: RunInNamespaceOptions = {},
): Promise<T> {
  const node = [process.execPath, "--import", "tsx", script, ...args];
  const [cmd, ...argv] = namespace === "" ? node : ["ip", "netns", "exec", namespace, ...node];
  const what = `${namespace || "(current ns)"}: ${script} ${args.join(" ")}`;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, argv, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`${what}: ${err.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${what}: exit ${code ?? signal}: ${stderr.trim().slice(-2000)}`));
        return;
      }
      const line = stdout.trim().split("\n").filter(Boolean).at(-1);
      try {
        resolve(JSON.parse(line ?? "") as T);
      } catch {
        reject(new Error(`${what}: no JSON on stdout: ${stdout.slice(-500)} ${stderr.slice(-500)}`));
      }
    });
  });
}

/** A long-running script started by {@link spawnInNamespace}. */
export interface NamespaceProcess<T> {
  /** the first stdout line parsed as JSON (e.g. the port a server bound) */
  ready: Promise<T>;
  /** SIGTERM, then SIGKILL after 2 s; resolves when the child is gone */
  stop(): Promise<void>;
}

/**
 * Starts a TypeScript script inside a namespace and keeps it running (servers: echo, agents). `ready` resolves
 * with its first stdout line as JSON, or rejects when it exits or prints no JSON within `timeoutMs` (default 30 s).
 */
export function spawnInNamespace<T = unknown>(
  namespace: string,
  script: string,
  args: readonly string[] = [],
  opts: RunInNamespaceOptions = {},
): NamespaceProcess<T> {
  const node = [process.execPath, "--import", "tsx", script, ...args];
  const [cmd, ...argv] = namespace === "" ? node : ["ip", "netns", "exec", namespace, ...node];
  const child = spawn(cmd as string, argv, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const ready = new Promise<T>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(
      () => reject(new Error(`${script}: not ready: ${stderr}`)),
      opts.timeoutMs ?? 30_000,
    );
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf.slice(0, nl)) as T);
      } catch {
        reject(new Error(`${script}: first line is not JSON: ${buf.slice(0, nl)}`));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`));
    });
  });
  ready.catch(() => undefined);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(t);
  };
  return { ready, stop };
}
