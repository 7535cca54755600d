import assert from "node:assert/strict";
import { test } from "node:test";
import { InFlight } from "./in-flight.ts";

/** A computation the test settles by hand. */
function gate<V>() {
  let resolve!: (v: V) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test("callers asking while a computation runs share it; one asking after it settled starts another", async () => {
  const f = new InFlight<number>();
  let started = 0;
  const g = gate<number>();
  const compute = () => {
    started++;
    return g.promise;
  };
  const a = f.run("k", compute);
  const b = f.run("k", compute);
  await new Promise((r) => setImmediate(r));
  const c = f.run("k", compute);
  assert.equal(started, 1);
  assert.equal(f.size, 1);
  g.resolve(7);
  assert.deepEqual(await Promise.all([a, b, c]), [7, 7, 7]);
  assert.equal(started, 1);
  assert.equal(f.size, 0);
  assert.equal(await f.run("k", async () => ++started), 2);
});

test("keys are separate; a failure reaches every caller of it and is not kept", async () => {
  const f = new InFlight<string>();
  const g = gate<string>();
  const a = f.run("a", () => g.promise);
  const b = f.run("a", () => Promise.resolve("not started"));
  const other = f.run("b", async () => "b");
  assert.equal(await other, "b");
  g.reject(new Error("prometheus down"));
  await assert.rejects(a, /prometheus down/);
  await assert.rejects(b, /prometheus down/);
  assert.equal(await f.run("a", async () => "again"), "again");
});

test("a computation that throws before its first await is an error of the run, not of the caller's stack", async () => {
  const f = new InFlight<number>();
  const p = f.run("k", () => {
    throw new Error("bad");
  });
  await assert.rejects(p, /bad/);
  assert.equal(f.size, 0);
});

test("keys are looked up as map keys: __proto__ and constructor are ordinary keys", async () => {
  const f = new InFlight<string>();
  assert.equal(await f.run("__proto__", async () => "p"), "p");
  assert.equal(await f.run("constructor", async () => "c"), "c");
});

test("with keepMs a settled answer is served until it is keepMs old; a failure is not kept", async () => {
  let t = 0;
  const f = new InFlight<number>({ keepMs: 1000, now: () => t });
  let started = 0;
  const compute = async () => ++started;
  assert.equal(await f.run("k", compute), 1);
  t = 999;
  assert.equal(await f.run("k", compute), 1, "999 ms after it settled: kept");
  t = 1000;
  assert.equal(await f.run("k", compute), 2, "1000 ms: computed again");
  const failing = new InFlight<number>({ keepMs: 1000, now: () => t });
  await assert.rejects(
    failing.run("k", async () => {
      throw new Error("controller down");
    }),
    /controller down/,
  );
  assert.equal(await failing.run("k", async () => 5), 5, "the failure was not kept");
});
