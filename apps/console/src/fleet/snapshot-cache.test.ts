import assert from "node:assert/strict";
import { test } from "node:test";
import { SnapshotCache } from "./snapshot-cache.ts";

test("fresh served as is; stale served at once with one background refresh; too old waits", async () => {
  let t = 0;
  let calls = 0;
  let gate: (() => void) | undefined;
  const cache = new SnapshotCache(
    async (k) => {
      calls++;
      if (calls > 1) await new Promise<void>((r) => (gate = r));
      return `${k}-${calls}`;
    },
    2000,
    60_000,
    () => t,
  );
  assert.equal(await cache.get("tcp"), "tcp-1");
  t = 1000;
  assert.equal(await cache.get("tcp"), "tcp-1");
  assert.equal(calls, 1, "fresh: no refresh");
  t = 5000;
  assert.equal(await cache.get("tcp"), "tcp-1", "stale: old value at once");
  assert.equal(await cache.get("tcp"), "tcp-1");
  assert.equal(calls, 2, "one refresh in flight for a burst");
  gate?.();
  await new Promise((r) => setImmediate(r));
  assert.equal(await cache.get("tcp"), "tcp-2");
  t = 100_000;
  const waiting = cache.get("tcp");
  await new Promise((r) => setImmediate(r));
  gate?.();
  assert.equal(await waiting, "tcp-3", "too old: waits for the refresh");
});

test("a failed refresh is thrown to a waiting caller and retried on the next call", async () => {
  let fail = true;
  const cache = new SnapshotCache(
    async () => {
      if (fail) throw new Error("prometheus down");
      return 1;
    },
    2000,
    60_000,
  );
  await assert.rejects(cache.get("x"), /prometheus down/);
  fail = false;
  assert.equal(await cache.get("x"), 1);
});

test("a slow snapshot stays fresh for twice its compute time", async () => {
  let t = 0;
  let calls = 0;
  const cache = new SnapshotCache(
    async () => {
      calls++;
      t += 10_000; // the compute takes 10 s of the clock
      return calls;
    },
    2000,
    60_000,
    () => t,
  );
  assert.equal(await cache.get("k"), 1);
  t += 19_000;
  assert.equal(await cache.get("k"), 1);
  assert.equal(calls, 1, "19 s after a 10 s compute: still fresh");
  t += 2000;
  assert.equal(await cache.get("k"), 1, "stale: served, refresh started");
  assert.equal(calls, 2);
});
