import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { MinHeap } from "./min-heap.ts";
import { CoalescingClock, timerClock } from "./probe-clock.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("min-heap pops in key order", () => {
  const h = new MinHeap<number>((x) => x);
  const values = Array.from({ length: 200 }, (_, i) => (i * 7919) % 211);
  for (const v of values) h.push(v);
  const out: number[] = [];
  for (let v = h.pop(); v !== undefined; v = h.pop()) out.push(v);
  assert.deepEqual(
    out,
    [...values].sort((a, b) => a - b),
  );
  assert.equal(h.size, 0);
});

test("callbacks whose window has opened run in the batch of the one that is due", async () => {
  const clock = new CoalescingClock();
  const t0 = performance.now();
  const ran: { name: string; at: number }[] = [];
  const log = (name: string) => (now: number) => ran.push({ name, at: now });
  clock.schedule(t0 + 40, log("due"));
  clock.schedule(t0 + 70, log("early-ok"), { early: 50 }); // window opens at t0+20: joins the t0+40 batch
  clock.schedule(t0 + 150, log("too-far"), { early: 50 }); // opens at t0+100: runs on its own
  clock.schedule(t0 + 30, log("late-ok"), { late: 30 }); // may wait until t0+60: joins the t0+40 batch
  await sleep(220);
  assert.deepEqual(ran.map((r) => r.name).sort(), ["due", "early-ok", "late-ok", "too-far"]);
  const at = Object.fromEntries(ran.map((r) => [r.name, r.at]));
  // one batch: the same time, except that a callback run in the sub-millisecond before its own time is told that
  // time (a second batch would come a timer later, at least 1 ms)
  const sameBatch = (x: string, y: string) => Math.abs((at[x] ?? 0) - (at[y] ?? Number.NaN)) < 1;
  assert.ok(sameBatch("due", "early-ok"), `due ${at.due}, early-ok ${at["early-ok"]}`);
  assert.ok(sameBatch("due", "late-ok"), `due ${at.due}, late-ok ${at["late-ok"]}`);
  assert.ok((at.due ?? 0) >= t0 + 30 && (at.due ?? 0) < t0 + 70, `batch at ${(at.due ?? 0) - t0}`);
  assert.ok((at["too-far"] ?? 0) >= t0 + 100, "never before its window opens");
  assert.equal(clock.pending, 0);
});

test("a callback never runs after its latest time, even when later ones were scheduled first", async () => {
  const clock = new CoalescingClock();
  const t0 = performance.now();
  const ran: [string, number][] = [];
  clock.schedule(t0 + 200, (now) => ran.push(["late", now - t0]));
  // scheduled from inside a batch: the earlier deadline must still arm the timer
  clock.schedule(t0 + 10, () => {
    clock.schedule(t0 + 120, (now) => ran.push(["inner-late", now - t0]));
    clock.schedule(t0 + 40, (now) => ran.push(["inner-soon", now - t0]));
  });
  await sleep(260);
  assert.deepEqual(
    ran.map(([n]) => n),
    ["inner-soon", "inner-late", "late"],
  );
  const soon = ran[0]?.[1] ?? 0;
  assert.ok(soon >= 39 && soon < 110, `inner-soon ran at +${soon} ms`);
});

test("a callback is never told a time before its own, so one that waits for its time by re-scheduling ends", async () => {
  const clock = new CoalescingClock();
  const runs: number[] = [];
  for (let i = 0; i < 30; i++) {
    const at = clock.now() + 3 + (i % 5) * 0.37;
    await new Promise<void>((resolve) => {
      let calls = 0;
      const check = (now: number) => {
        calls++;
        if (now < at && calls < 100) clock.schedule(at, check);
        else {
          runs.push(calls);
          resolve();
        }
      };
      clock.schedule(at, check);
    });
  }
  assert.ok(
    runs.every((c) => c === 1),
    `calls per wait: ${runs.join(",")}`,
  );
});

test("cancelled callbacks never run; callbacks scheduled in the past run at once", async () => {
  const clock = new CoalescingClock();
  let ran = 0;
  const e = clock.schedule(clock.now() + 20, () => ran++);
  e.cancel();
  e.cancel();
  assert.equal(clock.pending, 0);
  await sleep(40);
  assert.equal(ran, 0);
  let pastRan = false;
  clock.schedule(clock.now() - 1000, () => {
    pastRan = true;
  });
  await sleep(5);
  assert.equal(pastRan, true);
});

test("a throwing callback does not stop the rest of its batch", async () => {
  const errors: unknown[] = [];
  const clock = new CoalescingClock({ onError: (err) => errors.push(err) });
  const at = clock.now() + 10;
  let second = false;
  clock.schedule(at, () => {
    throw new Error("boom");
  });
  clock.schedule(at, () => {
    second = true;
  });
  await sleep(40);
  assert.equal(second, true);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /boom/);
});

test("timerClock runs each callback on its own timer and cancels", async () => {
  let ran = 0;
  timerClock.schedule(timerClock.now() + 5, () => ran++);
  timerClock.schedule(timerClock.now() + 5, () => ran++).cancel();
  await sleep(30);
  assert.equal(ran, 1);
});

test("batch hooks run first in every batch, a throwing one does not stop it, and removal stops a hook", async () => {
  const errors: unknown[] = [];
  const clock = new CoalescingClock({ onError: (e) => errors.push(e) });
  const order: string[] = [];
  const removeA = clock.onBatch(() => order.push("hook a"));
  clock.onBatch(() => {
    throw new Error("hook b");
  });
  const t0 = performance.now();
  clock.schedule(t0 + 10, () => order.push("first batch"));
  await sleep(40);
  removeA();
  clock.schedule(performance.now() + 5, () => order.push("second batch"));
  await sleep(40);
  assert.deepEqual(order, ["hook a", "first batch", "second batch"]);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ["hook b", "hook b"],
  );
  assert.equal(timerClock.onBatch, undefined, "plain timers have no batches");
});
