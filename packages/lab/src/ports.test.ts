import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePorts, PORT_RESERVATIONS, reservePort } from "./ports.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-ports-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A process that lives until killed, and its pid. */
async function liveProcess(): Promise<{ pid: number; end: () => Promise<void> }> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  const pid = child.pid;
  assert.ok(pid);
  const exited = new Promise((r) => child.once("exit", r));
  return {
    pid,
    end: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

test("a port another live process reserved is refused; once that process is gone it is taken over", async () => {
  const other = await liveProcess();
  assert.equal(reservePort(40001, dir, other.pid), true, "first reservation");
  assert.equal(reservePort(40001, dir), false, "held by a live process");
  assert.equal(reservePort(40001, dir), false, "still held");
  await other.end();
  assert.equal(reservePort(40001, dir), true, "its holder is gone");
  assert.equal(readFileSync(join(dir, "40001"), "utf8").split(" ")[0], String(process.pid));
  assert.equal(reservePort(40001, dir), false, "a port is handed out once, also within one process");
});

test("a reservation whose pid now names another process (a reused pid: other start time) is taken over", () => {
  writeFileSync(join(dir, "40004"), `${process.pid} 1\n`);
  assert.equal(reservePort(40004, dir), true);
});

test("a reservation file that names no process is taken over", () => {
  assert.equal(reservePort(40002, dir, 0x7ffffffe), true);
  assert.equal(reservePort(40002, dir), true);
});

test("a reservation file without a pid yet (its creator between creating and writing it) is held", () => {
  writeFileSync(join(dir, "40003"), "");
  assert.equal(reservePort(40003, dir), false);
});

test("freePorts hands out distinct ports, each reserved for this process", async () => {
  const ports = await freePorts(8);
  assert.equal(new Set(ports).size, 8);
  for (const p of ports) {
    assert.equal(readFileSync(join(PORT_RESERVATIONS, String(p)), "utf8").split(" ")[0], String(process.pid));
    assert.equal(reservePort(p), false, `port ${p} is not handed out again`);
  }
});
