import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The child script the path tests run in namespaces. */
export const PATH_PROBE_SCRIPT = fileURLToPath(new URL("./path-probe.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));

/** A `path-probe.ts serve` process (echo server + TCP listener) running in a namespace until stop(). */
export interface PathPeer {
  port: number;
  stop(): void;
}

/** Starts the serve mode in namespace on port and waits for its ready line. */
export function startPathPeer(namespace: string, port: number): Promise<PathPeer> {
  const child: ChildProcessWithoutNullStreams = spawn(
    "ip",
    [
      "netns",
      "exec",
      namespace,
      process.execPath,
      "--import",
      "tsx",
      PATH_PROBE_SCRIPT,
      "serve",
      String(port),
    ],
    { cwd: REPO_ROOT, stdio: "pipe" },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve in ${namespace} not ready: ${err}`));
    }, 20_000);
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      const { port: bound } = JSON.parse(out.split("\n")[0] ?? "{}") as { port: number };
      resolve({ port: bound, stop: () => child.stdin.end() });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve in ${namespace} exited ${code}: ${err}`));
    });
  });
}

/**
 * Runs path-probe.ts in namespace with CAP_NET_RAW dropped from every capability set (capsh), so only
 * unprivileged ping sockets can work. Resolves the last JSON line.
 */
export async function runWithoutNetRaw<T>(
  exec: (cmd: string, args: readonly string[]) => Promise<{ stdout: string }>,
  args: readonly string[],
): Promise<T> {
  const node = [process.execPath, "--import", "tsx", PATH_PROBE_SCRIPT, ...args];
  const { stdout } = await exec("capsh", [
    "--drop=cap_net_raw",
    "--",
    "-c",
    `cd ${REPO_ROOT} && exec "$0" "$@"`,
    ...node,
  ]);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "null") as T;
}
