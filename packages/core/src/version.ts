import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The release of this build (root package.json). */
export const SVC_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

let commit: string | undefined;

/** The commit this build came from: SVC_COMMIT, else `git rev-parse --short HEAD`, else "unknown". */
export function svcCommit(): string {
  if (commit !== undefined) return commit;
  commit = process.env.SVC_COMMIT ?? "";
  if (!commit) {
    try {
      commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
        cwd: new URL("../../..", import.meta.url),
        stdio: ["ignore", "pipe", "ignore"],
      })
        .toString()
        .trim();
    } catch {
      commit = "unknown";
    }
  }
  return commit;
}
