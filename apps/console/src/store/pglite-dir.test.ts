// The embedded store on a directory (issue 36): a new directory is created by a child process and opened here, with
// the small memory settings; reopening it keeps what was written.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { initPgliteDir, startPglite } from "./pglite.ts";

test("a new pglite:<dir> is created, opened with the small settings, and reopened with its data", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-pglite-dir-")), "db");
  try {
    const first = await startPglite(dir);
    try {
      assert.ok(existsSync(join(dir, "PG_VERSION")), "the child created the database");
      const sb = await first.query<{ shared_buffers: string }>("SHOW shared_buffers");
      assert.equal(sb.rows[0]?.shared_buffers, "16MB");
      await first.exec("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('written before the restart')");
    } finally {
      await first.close();
    }
    await initPgliteDir(dir); // an existing database: nothing to do
    const again = await startPglite(dir);
    try {
      const r = await again.query<{ v: string }>("SELECT v FROM kept");
      assert.deepEqual(
        r.rows.map((x) => x.v),
        ["written before the restart"],
      );
    } finally {
      await again.close();
    }
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
});
