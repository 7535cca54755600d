import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { CONTROLLER_HEAP_FLAGS, heapFlagsToApply } from "./heap-policy.ts";

test("the operator's own heap flags win over the policy", () => {
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, []), [...CONTROLLER_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--heap-growing-percent=50"]), [
    "--semi-space-growth-factor=1",
  ]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--semi_space_growth_factor=2"]), [
    "--heap-growing-percent=25",
  ]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--max-old-space-size=256"]), []);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--enable-source-maps", ""]), [
    ...CONTROLLER_HEAP_FLAGS,
  ]);
});

/** Runs a process that churns short-lived garbage over a 100 MiB live set; returns its heap figures, MiB. */
function churn(applyPolicy: boolean): { newSpace: number; heapTotal: number } {
  const policy = new URL("./heap-policy.ts", import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
    import { applyHeapPolicy } from ${JSON.stringify(policy)};
    if (${applyPolicy}) applyHeapPolicy();
    const live = [];
    for (let i = 0; i < 100; i++) live.push(Array.from({ length: 20000 }, (_, j) => ({ i, j })));
    for (let k = 0; k < 400; k++) live[k % 100] = Array.from({ length: 20000 }, (_, j) => ({ k, j }));
    const mib = (b) => b / 2 ** 20;
    const ns = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    console.log(JSON.stringify({ newSpace: mib(ns.space_size), heapTotal: mib(getHeapStatistics().total_heap_size) }));
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { newSpace: number; heapTotal: number };
}

test("applied after start-up, the policy keeps the young generation small and old space close to the live heap", () => {
  const plain = churn(false);
  const policed = churn(true);
  assert.ok(plain.newSpace >= 16, `default young generation grew: ${plain.newSpace} MiB`);
  assert.ok(policed.newSpace <= 8, `policy young generation: ${policed.newSpace} MiB`);
  assert.ok(
    policed.heapTotal < plain.heapTotal * 0.9,
    `heap ${policed.heapTotal.toFixed(0)} MiB with the policy vs ${plain.heapTotal.toFixed(0)} MiB without`,
  );
});
