// ReadBatch: each caller's answer comes from a read started after it asked; callers arriving during one read share
// the next one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ReadBatch } from "./read-batch.ts";

/** A read the test settles by hand, numbered in the order reads start. */
function reads() {
  const started: { n: number; resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  const read = () =>
    new Promise<string>((resolve, reject) => started.push({ n: started.length + 1, resolve, reject }));
  return { started, read };
}

const tick = () => new Promise((r) => setImmediate(r));

test("callers during a read wait for the next one, which they share; nobody gets the read under way", async () => {
  const b = new ReadBatch<string>();
  const { started, read } = reads();
  const first = b.run("users", read);
  await tick();
  assert.equal(started.length, 1);
  const later = Array.from({ length: 20 }, () => b.run("users", read));
  await tick();
  assert.equal(started.length, 1, "the next read waits for the one under way");
  started[0]?.resolve("read 1");
  assert.equal(await first, "read 1");
  await tick();
  assert.equal(started.length, 2, "one read for the 20 callers that arrived meanwhile");
  const afterSecondStarted = b.run("users", read);
  started[1]?.resolve("read 2");
  assert.deepEqual(new Set(await Promise.all(later)), new Set(["read 2"]));
  await tick();
  assert.equal(started.length, 3, "a caller arriving during read 2 gets read 3");
  started[2]?.resolve("read 3");
  assert.equal(await afterSecondStarted, "read 3");
  await tick();
  assert.equal(b.size, 0);
});

test("keys are apart; a failed read fails its callers only, and the next read runs", async () => {
  const b = new ReadBatch<string>();
  const { started, read } = reads();
  const a = b.run("a", read);
  const other = b.run("b", async () => "b");
  const waiting = b.run("a", read);
  await tick();
  assert.equal(await other, "b");
  started[0]?.reject(new Error("store down"));
  await assert.rejects(a, /store down/);
  await tick();
  started[1]?.resolve("back");
  assert.equal(await waiting, "back");
});

test("a read that throws before its first await is an error of the read", async () => {
  const b = new ReadBatch<string>();
  await assert.rejects(
    b.run("k", () => {
      throw new Error("bad");
    }),
    /bad/,
  );
  await tick();
  assert.equal(b.size, 0);
});
