/** The web app takes its wire types from @svc/contract and shared logic from packages, never from the console app. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

test("no file of the web app imports from the console app", () => {
  const root = new URL(".", import.meta.url).pathname;
  const offenders = files(root).filter((f) =>
    [...readFileSync(f, "utf8").matchAll(/from "([^"]+)"/g)].some(
      (m) => /(^|\/)console\/src\//.test(m[1] ?? "") || m[1] === "@svc/console",
    ),
  );
  assert.deepEqual(offenders, []);
});
