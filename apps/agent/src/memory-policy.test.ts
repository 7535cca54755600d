import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

const POLICY = new URL("./memory-policy.ts", import.meta.url).href;

/**
 * A child node (tsx loader, natives syntax for V8's optimization status) that applies the agent's memory policy
 * or not, runs a hot function, and reports.
 */
function run(apply: boolean): {
  optimized: boolean;
  released: number;
  rssFileDrop: number;
  malloc: boolean;
  once: boolean;
} {
  const script = `
    import { readFileSync } from "node:fs";
    import { applyAgentMemoryPolicy } from ${JSON.stringify(POLICY)};
    const file = () => Number(/RssFile:\\s+(\\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const before = file();
    const p = ${apply} ? applyAgentMemoryPolicy() : { releasedBytes: 0, malloc: false };
    const dropped = before - file();
    const once = ${apply} ? applyAgentMemoryPolicy() === p : true;
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
    for (let i = 0; i < 20000; i++) hot(200);
    const optimized = (%GetOptimizationStatus(hot) & 16) !== 0;
    console.log(JSON.stringify({ optimized, released: p.releasedBytes / 2 ** 20, rssFileDrop: dropped, malloc: p.malloc, once }));
    process.exit(0);
  `;
  const r = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script],
    { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" }, timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("the agent's memory policy: no optimizing compiler, malloc tuned, the executable's pages released", () => {
  const plain = run(false);
  const policed = run(true);
  assert.equal(plain.optimized, true, "without the policy V8 optimizes a hot function");
  assert.equal(policed.optimized, false, "with the policy it stays in the baseline tiers");
  assert.equal(policed.malloc, true);
  assert.equal(policed.once, true, "a second call returns what the first did");
  assert.ok(policed.released >= 10, `released ${policed.released.toFixed(1)} MiB`);
  assert.ok(policed.rssFileDrop >= 10, `RssFile dropped by ${policed.rssFileDrop.toFixed(1)} MiB`);
});

test("the executable's pages are released again on the policy's schedule", () => {
  const script = `
    import { readFileSync } from "node:fs";
    import { applyAgentMemoryPolicy } from ${JSON.stringify(POLICY)};
    const file = () => Number(/RssFile:\\s+(\\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    applyAgentMemoryPolicy({ firstMs: 300, everyMs: 300 });
    // code not run before maps pages of the executable again
    const { createHash, generateKeyPairSync } = await import("node:crypto");
    generateKeyPairSync("ec", { namedCurve: "P-256" });
    createHash("sha512").update("svc").digest();
    new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(1234.5);
    const touched = file();
    const samples = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 100));
      samples.push(file());
    }
    console.log(JSON.stringify({ touched, lowest: Math.min(...samples) }));
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const { touched, lowest } = JSON.parse(r.stdout) as { touched: number; lowest: number };
  assert.ok(
    touched - lowest >= 2,
    `RssFile ${touched.toFixed(1)} MiB after new work, ${lowest.toFixed(1)} at lowest`,
  );
});
