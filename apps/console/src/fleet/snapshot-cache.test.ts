import assert from "node:assert/strict";
import { test } from "node:test";
import { type Every, SnapshotCache } from "./snapshot-cache.ts";

/** keepWarm's periods in virtual time: pass() runs one period's pass, as the interval would. */
function virtualPeriods(): { every: Every; pass(): Promise<void>; running(): number } {
  const passes = new Set<() => void>();
  return {
    every: (fn) => {
      const own = () => fn();
      passes.add(own);
      return () => {
        passes.delete(own);
      };
    },
    async pass() {
      for (const fn of passes) fn();
      await new Promise((r) => setImmediate(r)); // the refreshes it started settle
    },
    running: () => passes.size,
  };
}

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

test("keepWarm refreshes recently asked snapshots once stale, leaves idle and never-computed keys alone", async () => {
  let t = 0;
  const calls = new Map<string, number>();
  const cache = new SnapshotCache(
    async (k) => {
      calls.set(k, (calls.get(k) ?? 0) + 1);
      if (k === "down") throw new Error("prometheus down");
      return k;
    },
    2000,
    60_000,
    () => t,
  );
  await cache.get("viewed");
  await cache.get("idle");
  await assert.rejects(cache.get("down"));
  t = 5_000;
  await cache.get("viewed"); // stale: served, one refresh
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.get("viewed"), 2);
  t = 20_000; // "idle" was last asked at 0, "viewed" at 5 s; idle window 18 s
  const periods = virtualPeriods();
  const stop = cache.keepWarm(5, 18_000, periods.every);
  for (let i = 0; i < 12; i++) await periods.pass();
  stop();
  assert.equal(calls.get("viewed"), 3, "asked within the idle window: refreshed without a request, once");
  assert.equal(calls.get("idle"), 1, "not asked for 20 s: left alone");
  assert.equal(calls.get("down"), 1, "never computed: not polled");
  assert.equal(periods.running(), 0, "stopped: no more passes");
  t = 40_000; // "viewed" stale again: a stopped keepWarm refreshes nothing
  await periods.pass();
  assert.equal(calls.get("viewed"), 3, "stopped: no more refreshes");
});

test("warm computes a key before anyone asks", async () => {
  let calls = 0;
  const cache = new SnapshotCache(async () => ++calls, 2000, 60_000);
  cache.warm("tcp");
  assert.equal(await cache.get("tcp"), 1);
  assert.equal(calls, 1, "get joined the warm-up instead of computing again");
});

test("a slow snapshot is served stale for four times its compute time, beyond the stale bound", async () => {
  let t = 0;
  let calls = 0;
  let gate: (() => void) | undefined;
  const cache = new SnapshotCache(
    async () => {
      calls++;
      // the first compute takes 30 s of the clock
      if (calls === 1) t += 30_000;
      else await new Promise<void>((r) => (gate = r));
      return calls;
    },
    2000,
    60_000,
    () => t,
  );
  assert.equal(await cache.get("k"), 1);
  t += 100_000; // older than the 60 s stale bound, younger than 4 x 30 s
  assert.equal(await cache.get("k"), 1, "served at once while the refresh runs");
  assert.equal(calls, 2);
  t += 30_000; // 130 s: past 4 x 30 s, so a caller waits for the running refresh
  const waiting = cache.get("k");
  gate?.();
  assert.equal(await waiting, 2);
});

test("keepWarm backs off after a failed refresh instead of polling a failing backend every period", async () => {
  let t = 0;
  let calls = 0;
  let fail = false;
  const cache = new SnapshotCache(
    async () => {
      calls++;
      if (fail) throw new Error("prometheus down");
      return calls;
    },
    2000,
    60_000,
    () => t,
  );
  await cache.get("tcp");
  fail = true;
  t = 3000; // stale: keepWarm refreshes, the refresh fails
  const periods = virtualPeriods();
  const stop = cache.keepWarm(5, 600_000, periods.every);
  try {
    for (let i = 0; i < 10; i++) await periods.pass();
    assert.equal(calls, 2, "one failed background refresh, then no retry within 10 s");
    t = 13_500;
    for (let i = 0; i < 10; i++) await periods.pass();
    assert.equal(calls, 3, "retried once 10 s after the failure");
    assert.equal(await cache.get("tcp"), 1, "the old snapshot is still served meanwhile");
  } finally {
    stop();
  }
});
