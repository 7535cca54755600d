import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Whether `ss` (iproute2) can be run. */
export function hasSs(): boolean {
  try {
    execFileSync("ss", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The tcp sockets of this namespace with `port` at either end in `state` (time-wait...), as `ss` lists them. */
export async function socketsOnPort(port: number, state: string): Promise<string[]> {
  const { stdout } = await exec("ss", ["-tanH", "state", state]);
  return stdout.split("\n").filter((l) => new RegExp(`:${port}\\s`).test(`${l} `));
}
