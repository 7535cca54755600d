import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as dns } from "node:dns";
import { test } from "node:test";
import { promisify } from "node:util";
import { LabDnsServer } from "./dns.ts";

const exec = promisify(execFile);

test("answers A and AAAA for its names and NXDOMAIN otherwise, as node's resolver sees it", async () => {
  const server = new LabDnsServer({
    "node-1.lab": "198.18.1.11",
    "v6.lab": ["fd00:198:18::11", "198.18.1.12"],
  });
  const port = await server.start("127.0.0.1", 0);
  try {
    const r = new dns.Resolver();
    r.setServers([`127.0.0.1:${port}`]);
    assert.deepEqual(await r.resolve4("node-1.lab."), ["198.18.1.11"]);
    assert.deepEqual(await r.resolve6("v6.lab"), ["fd00:198:18::11"]);
    await assert.rejects(r.resolve4("missing.lab"), (err: NodeJS.ErrnoException) => err.code === "ENOTFOUND");
  } finally {
    server.stop();
  }
});

test("dig agrees with the responder", { skip: process.env.CI !== "true" && !(await hasDig()) }, async () => {
  const server = new LabDnsServer({ "node-2.lab": "198.18.1.12" });
  const port = await server.start("127.0.0.1", 0);
  try {
    const { stdout } = await exec("dig", [
      "+short",
      "+tries=1",
      "+time=2",
      "-p",
      String(port),
      "@127.0.0.1",
      "node-2.lab",
    ]);
    assert.equal(stdout.trim(), "198.18.1.12");
  } finally {
    server.stop();
  }
});

async function hasDig(): Promise<boolean> {
  try {
    await exec("dig", ["-v"]);
    return true;
  } catch {
    return false;
  }
}
