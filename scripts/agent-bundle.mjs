// Where the agent bundle lives and whether it is current. Plain JavaScript: the `svc` launcher reads it before
// any TypeScript loader is registered.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const AGENT_ENTRY = join(ROOT, "apps/agent/src/bin.ts");
export const AGENT_BUNDLE = join(ROOT, "apps/agent/dist/agent.mjs");
/** Source trees the agent bundle is built from. */
const SOURCES = [
  "apps/agent/src",
  "packages/core/src",
  "packages/protocol/src",
  "packages/protocol/proto",
  "packages/native/src",
];

function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) max = Math.max(max, newest(p));
    else if (!entry.name.endsWith(".test.ts")) max = Math.max(max, statSync(p).mtimeMs);
  }
  return max;
}

/** True when the bundle exists and is newer than every agent source file (tests excluded). */
export function agentBundleFresh() {
  if (!existsSync(AGENT_BUNDLE)) return false;
  const built = statSync(AGENT_BUNDLE).mtimeMs;
  return SOURCES.every((s) => newest(join(ROOT, s)) <= built);
}
