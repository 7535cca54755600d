import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "@svc/lab";

const dir = mkdtempSync(join(tmpdir(), "svc-console-main-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function runChild(configPath: string): {
  child: ChildProcess;
  out: () => string;
  exit: Promise<number | null>;
} {
  const main = join(import.meta.dirname, "main.ts");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import(${JSON.stringify(main)}).then((m) => m.runConsole({ configPath: ${JSON.stringify(configPath)} })).then((c) => process.exit(c))`,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SVC_CONFIG: "" } },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += String(d);
  });
  child.stderr?.on("data", (d) => {
    out += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, out: () => out, exit };
}

test("svc console refuses an invalid config with exit code 1 naming every key path", async () => {
  const path = join(dir, "bad.yaml");
  writeFileSync(path, "auth:\n  mode: header\nwebsocket:\n  maxConnections: -5\n");
  const run = runChild(path);
  assert.equal(await run.exit, 1);
  assert.match(run.out(), /auth\.header\.trustedProxyCIDRs: must not be empty/);
  assert.match(run.out(), /websocket\.maxConnections: must be 0 \(no cap\) or positive, got -5/);
});

test("svc console serves on its ports, becomes ready on PGlite, applies its heap policy, and exits 0 on SIGTERM", async () => {
  const [http, metrics] = [await freePort(), await freePort()];
  const path = join(dir, "good.yaml");
  writeFileSync(
    path,
    `httpPort: ${http}\nmetricsPort: ${metrics}\nlogLevel: debug\ndatabase:\n  url: pglite:memory\n`,
  );
  const run = runChild(path);
  try {
    // generous: PGlite start-up in a child on a loaded 2-core machine can take tens of seconds
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await fetch(`http://127.0.0.1:${metrics}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
    }
    assert.ok(ready, `console never became ready:\n${run.out()}`);
    const cfg = await fetch(`http://127.0.0.1:${http}/api/v1/config`);
    assert.equal(
      ((await cfg.json()) as { backends: { databaseKind: string } }).backends.databaseKind,
      "pglite",
    );
  } finally {
    run.child.kill("SIGTERM");
  }
  assert.equal(await run.exit, 0);
  assert.match(run.out(), /console stopped/);
  const policy = run
    .out()
    .split("\n")
    .find((l) => l.includes("garbage-collection policy applied"));
  assert.ok(policy, `no heap policy line:\n${run.out()}`);
  assert.match(policy, /--heap-growing-percent=25/);
});
