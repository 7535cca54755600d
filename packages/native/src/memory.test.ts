import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { tuneMalloc } from "./memory.ts";

const MEMORY = new URL("./memory.ts", import.meta.url).href;

/** Runs module source in a child node (tsx loader) and returns what it printed as JSON. */
function child<T>(source: string): T {
  const script = `
    import { readFileSync } from "node:fs";
    import { releaseExecutablePages, tuneMalloc } from ${JSON.stringify(MEMORY)};
    const status = (key) => Number(new RegExp(key + ":\\\\s+(\\\\d+) kB").exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    ${source}
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as T;
}

test("releaseExecutablePages drops node's clean pages from the resident set, and the process runs on", () => {
  const r = child<{ before: number; after: number; released: number; work: string; again: number }>(`
    const before = status("RssFile");
    const released = releaseExecutablePages() / 2 ** 20;
    const after = status("RssFile");
    // code that was not run since: crypto, Intl, a regular expression, a module loaded now
    const { createHash } = await import("node:crypto");
    const { gzipSync, gunzipSync } = await import("node:zlib");
    const work = [
      createHash("sha256").update("svc").digest("hex").slice(0, 8),
      new Intl.DateTimeFormat("en-GB", { timeZone: "UTC" }).format(new Date(0)),
      /(\\d+)-(\\d+)/.exec("198-18")?.[2],
      gunzipSync(gzipSync("peer")).toString(),
    ].join(" ");
    console.log(JSON.stringify({ before, after, released, work, again: releaseExecutablePages() }));
  `);
  assert.ok(r.released >= 10, `released ${r.released.toFixed(1)} MiB`);
  assert.ok(r.before - r.after >= 10, `RssFile ${r.before.toFixed(1)} -> ${r.after.toFixed(1)} MiB`);
  // the same work done here, where nothing was released
  const hash = createHash("sha256").update("svc").digest("hex").slice(0, 8);
  assert.equal(r.work, `${hash} 01/01/1970 18 peer`);
  // the pages the work needed came back, and can be released again
  assert.ok(r.again > 0);
});

test("tuneMalloc returns freed large allocations to the system", () => {
  const run = (tune: boolean) =>
    child<{ held: number; freed: number; tuned: boolean }>(`
      const tuned = ${tune} ? tuneMalloc(1, 64 * 1024) : false;
      const base = status("RssAnon");
      // 100 KiB blocks (under glibc's default 128 KiB mmap threshold) between small ones that stay allocated
      let big = [];
      const small = [];
      for (let i = 0; i < 300; i++) {
        big.push(Buffer.allocUnsafeSlow(100 * 1024).fill(1));
        small.push(Buffer.allocUnsafeSlow(512).fill(2));
      }
      const held = status("RssAnon") - base;
      big = undefined;
      const { setFlagsFromString } = await import("node:v8");
      setFlagsFromString("--expose-gc");
      const gc = (await import("node:vm")).runInNewContext("gc");
      gc();
      await new Promise((r) => setTimeout(r, 100));
      gc();
      console.log(JSON.stringify({ held, freed: status("RssAnon") - base, tuned, small: small.length }));
    `);
  const plain = run(false);
  const tuned = run(true);
  assert.equal(tuned.tuned, true);
  assert.ok(plain.held >= 25 && tuned.held >= 25, `held ${plain.held} / ${tuned.held} MiB`);
  assert.ok(plain.freed >= 20, `without tuning the arena kept ${plain.freed.toFixed(1)} MiB`);
  assert.ok(tuned.freed <= 8, `tuned, ${tuned.freed.toFixed(1)} MiB stayed resident after the free`);
});

test("tuneMalloc refuses arguments out of range", () => {
  assert.throws(() => tuneMalloc(0, 65536), { name: "TypeError", message: /arenaMax >= 1/ });
  assert.throws(() => tuneMalloc(1, 1024), { name: "TypeError", message: /mmapThreshold >= 4096/ });
  assert.throws(() => tuneMalloc(Number.NaN, 65536), TypeError);
});
