import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { startProcess } from "./processes.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-processes-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a process's log holds all the output it gave, also what was still in the pipes when it exited", async () => {
  const half = 1 << 19;
  for (let i = 0; i < 30; i++) {
    const logFile = join(dir, `p${i}.log`);
    // both streams, then an exit at once: chunks still in the pipes are read after the exit event
    const p = startProcess(
      "writer",
      process.execPath,
      [
        "-e",
        `process.stdout.write("o".repeat(${half})); process.stderr.write("e".repeat(${half})); process.exit(0)`,
      ],
      { logFile },
    );
    let given = 0;
    for (const s of [p.child.stdout, p.child.stderr]) s?.on("data", (d: Buffer) => (given += d.length));
    const closed = new Promise((r) => p.child.once("close", r));
    assert.equal(await p.exited, 0);
    await closed;
    assert.ok(given > 0);
    const deadline = Date.now() + 10_000;
    while (statSync(logFile).size !== given && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(statSync(logFile).size, given, `${logFile}: the log has every byte the process gave`);
  }
});
