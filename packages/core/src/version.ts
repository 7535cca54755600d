import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the nearest directory upwards holding the `svc` package.json (works bundled too). */
function findRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "svc")
      return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

const root = findRoot();

/** The release of this build (root package.json; SVC_VERSION overrides, e.g. in images without the tree). */
export const SVC_VERSION: string =
  process.env.SVC_VERSION ??
  (root
    ? (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version
    : "2.5.0");

let commit: string | undefined;

/** The commit this build came from: SVC_COMMIT, else `git rev-parse --short HEAD`, else "unknown". */
export function svcCommit(): string {
  if (commit !== undefined) return commit;
  commit = process.env.SVC_COMMIT ?? "";
  if (!commit) {
    try {
      commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
        cwd: root ?? process.cwd(),
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
