// Builds apps/web into apps/web/dist when dist is missing or older than any source file. Run under a file lock
// (web-harness.ts does) so test files starting together build once.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Directory of the web app. */
export const WEB_DIR = join(import.meta.dirname, "../../apps/web");
/** Build output served by the console. */
export const WEB_DIST = join(WEB_DIR, "dist");

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}

/** True when dist/index.html is absent or older than the sources, config or the console's shared types. */
export function webBuildStale(): boolean {
  const index = join(WEB_DIST, "index.html");
  if (!existsSync(index)) return true;
  const sources = ["src", "index.html", "vite.config.ts", "package.json"].map((p) => join(WEB_DIR, p));
  return Math.max(...sources.map(newest)) > statSync(index).mtimeMs;
}

if (process.argv[2] === "--build-if-stale" && webBuildStale()) {
  const vite = join(WEB_DIR, "../../node_modules/vite/bin/vite.js");
  const r = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: WEB_DIR,
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}
