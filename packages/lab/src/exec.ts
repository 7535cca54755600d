import { execFile } from "node:child_process";

/** Result of a finished command. */
export interface ExecResult {
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell; rejects with the command line and its stderr when it exits non-zero. */
export function run(
  cmd: string,
  args: readonly string[],
  opts: { input?: string } = {},
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${cmd} ${args.join(" ")}: ${stderr.trim() || err.message}`));
        return;
      }
      resolve({ stdout, stderr });
    });
    if (opts.input !== undefined) {
      child.stdin?.end(opts.input);
    }
  });
}

/** Runs a command and resolves false instead of rejecting when it fails. */
export async function tryRun(cmd: string, args: readonly string[]): Promise<boolean> {
  try {
    await run(cmd, args);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process may create network namespaces (root). */
export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}
