import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

/**
 * Runs a child process that churns short-lived garbage over a 100 MiB live set, after `setup` (module source
 * lines run first; empty = V8 defaults). Returns the child's young generation and total heap sizes, MiB.
 */
export function heapAfterChurn(setup: string): { newSpace: number; heapTotal: number } {
  const script = `
    import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
    ${setup}
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

/** Asserts that a policy kept the young generation small and old space close to the live heap. */
export function assertPolicyShrinksHeap(setup: string): void {
  const plain = heapAfterChurn("");
  const policed = heapAfterChurn(setup);
  assert.ok(plain.newSpace >= 16, `default young generation grew: ${plain.newSpace} MiB`);
  assert.ok(policed.newSpace <= 8, `policy young generation: ${policed.newSpace} MiB`);
  assert.ok(
    policed.heapTotal < plain.heapTotal * 0.9,
    `heap ${policed.heapTotal.toFixed(0)} MiB with the policy vs ${plain.heapTotal.toFixed(0)} MiB without`,
  );
}
