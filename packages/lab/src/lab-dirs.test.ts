import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { claimLabDir, newLabDir, pruneLabDirs } from "./lab-dirs.ts";
import { processStart } from "./state.ts";

/** A pid whose process has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid ?? 0;
  await new Promise((r) => child.once("exit", r));
  return pid;
}

test("labs keep their newest few directories and every running lab's; nothing else in the folder is touched", async () => {
  const parent = mkdtempSync(join(tmpdir(), "svc-lab-dirs-test-"));
  const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  try {
    const dead = await deadPid();
    const t0 = Date.now() / 1000 - 3600;
    const dirs: string[] = [];
    // eight lab directories, oldest first; the oldest belongs to a running lab
    for (let i = 0; i < 8; i++) {
      const d = join(parent, `svc-lab-${String(i).padStart(6, "x")}`);
      mkdirSync(d);
      const owner =
        i === 0 ? { pid: live.pid, pidStart: processStart(live.pid ?? 0) } : { pid: dead, pidStart: "1" };
      writeFileSync(join(d, "lab.owner"), JSON.stringify(owner));
      utimesSync(d, t0 + i * 60, t0 + i * 60);
      dirs.push(d);
    }
    // what is not a lab directory of this kind stays whatever its age
    for (const other of ["svc-lab", "svc-lab-state-abc123", "svc-lab-nomark"]) {
      mkdirSync(join(parent, other));
      utimesSync(join(parent, other), t0 - 600, t0 - 600);
    }
    const removed = pruneLabDirs(parent, 5);
    assert.deepEqual(removed.sort(), [dirs[1], dirs[2]].sort(), "the two oldest gone labs' directories");
    assert.ok(existsSync(dirs[0] ?? ""), "a running lab's directory stays, however old");
    for (const d of dirs.slice(3)) assert.ok(existsSync(d), `${d} is among the newest five`);
    assert.deepEqual(
      readdirSync(parent)
        .filter((n) => !/^svc-lab-x{5}\d$/.test(n))
        .sort(),
      ["svc-lab", "svc-lab-nomark", "svc-lab-state-abc123"],
    );

    // a new lab directory is claimed for this process at once (a lab starting beside it never prunes it)
    const mine = newLabDir(parent, 5);
    assert.ok(existsSync(join(mine, "lab.owner")));
    assert.equal(pruneLabDirs(parent, 1).includes(mine), false, "this (running) process's directory stays");
    claimLabDir(mine); // idempotent
  } finally {
    live.kill();
    rmSync(parent, { recursive: true, force: true });
  }
});
