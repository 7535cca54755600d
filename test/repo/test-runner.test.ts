/**
 * scripts/test-run.mjs, the runner under `npm test`: files run in the order given (the CLI would sort them), a
 * failing file makes the exit code 1, and --durations writes each file's time.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const RUNNER = new URL("../../scripts/test-run.mjs", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "svc-test-run-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `import { test } from "node:test";\n${body}\n`);
  return p;
}

function runner(...args: string[]) {
  // as `npm test` starts it: not as a file under a test runner (that context makes run() report in its binary form)
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const res = spawnSync(process.execPath, [RUNNER, ...args], { cwd: dir, encoding: "utf8", env });
  return { status: res.status, out: res.stdout };
}

test("files run in the order given, one at a time with --concurrency=1; all pass: exit 0", () => {
  const z = file("z.test.mjs", 'test("z first", () => {});');
  const a = file("a.test.mjs", 'test("a second", () => {});');
  const { status, out } = runner("--concurrency=1", "--", z, a);
  assert.equal(status, 0, out);
  const zAt = out.indexOf("ok 1 - z first");
  const aAt = out.indexOf("ok 2 - a second");
  assert.ok(zAt >= 0 && aAt > zAt, out);
});

test("a failing file: exit 1; --durations names every file with its seconds", () => {
  const ok = file("ok.test.mjs", 'test("waits", () => new Promise((r) => setTimeout(r, 200)));');
  const bad = file("bad.test.mjs", 'test("fails", () => { throw new Error("boom"); });');
  const out = join(dir, "durations.json");
  const res = runner("--concurrency=2", `--durations=${out}`, "--", ok, bad);
  assert.equal(res.status, 1, res.out);
  const d = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
  assert.deepEqual(Object.keys(d).sort(), ["bad.test.mjs", "ok.test.mjs"]);
  assert.ok((d["ok.test.mjs"] ?? 0) >= 0.2, JSON.stringify(d));
});

test("--concurrency must be a whole number", () => {
  const res = runner("--concurrency=0", "--", file("x.test.mjs", 'test("x", () => {});'));
  assert.equal(res.status, 2);
});
