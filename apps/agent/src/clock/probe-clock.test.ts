import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { MinHeap } from "./min-heap.ts";
import { type ClockTimers, CoalescingClock, timerClock } from "./probe-clock.ts";
import { VirtualTimers } from "./testdata/virtual-timers.ts";

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

test("callbacks whose window has opened run in the batch of the one that is due (virtual time)", () => {
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ timers });
  const t0 = clock.now();
  const ran: { name: string; at: number }[] = [];
  const log = (name: string) => (now: number) => ran.push({ name, at: now - t0 });
  clock.schedule(t0 + 40, log("due"));
  clock.schedule(t0 + 70, log("early-ok"), { early: 50 }); // window opens at t0+20: joins the t0+40 batch
  clock.schedule(t0 + 150, log("too-far"), { early: 50 }); // opens at t0+100: runs on its own
  clock.schedule(t0 + 30, log("late-ok"), { late: 30 }); // may wait until t0+60: joins the t0+40 batch
  timers.advance(220);
  // one batch at +40 (in order of their windows' opening), too-far on its own at its latest time
  assert.deepEqual(ran, [
    { name: "early-ok", at: 40 },
    { name: "late-ok", at: 40 },
    { name: "due", at: 40 },
    { name: "too-far", at: 150 },
  ]);
  assert.equal(clock.pending, 0);
  assert.equal(timers.armed, 0, "no timer left armed");
});

test("a callback never runs after its latest time, even when later ones were scheduled first (virtual time)", () => {
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ timers });
  const t0 = clock.now();
  const ran: [string, number][] = [];
  clock.schedule(t0 + 200, (now) => ran.push(["late", now - t0]));
  // scheduled from inside a batch: the earlier deadline must still arm the timer
  clock.schedule(t0 + 10, () => {
    clock.schedule(t0 + 120, (now) => ran.push(["inner-late", now - t0]));
    clock.schedule(t0 + 40, (now) => ran.push(["inner-soon", now - t0]));
  });
  timers.advance(260);
  assert.deepEqual(ran, [
    ["inner-soon", 40],
    ["inner-late", 120],
    ["late", 200],
  ]);
});

test("a callback is never told a time before its own, so one that waits for its time by re-scheduling ends", () => {
  // a timer that fires up to 1 ms early (as Node's may) must not make a self-rescheduling wait spin
  const timers = new VirtualTimers();
  const early: ClockTimers = {
    now: () => timers.now(),
    set: (fn, ms) => timers.set(fn, ms - 0.9),
    clear: (h) => timers.clear(h),
  };
  const clock = new CoalescingClock({ timers: early });
  const runs: number[] = [];
  for (let i = 0; i < 30; i++) {
    const at = clock.now() + 3 + (i % 5) * 0.37;
    let calls = 0;
    let done = false;
    const check = (now: number) => {
      calls++;
      if (now < at && calls < 100) clock.schedule(at, check);
      else done = true;
    };
    clock.schedule(at, check);
    timers.advance(10);
    assert.ok(done, `wait ${i} ended`);
    runs.push(calls);
  }
  assert.ok(
    runs.every((c) => c === 1),
    `calls per wait: ${runs.join(",")}`,
  );
});

test("cancelled callbacks never run; callbacks scheduled in the past run at once (virtual time)", () => {
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ timers });
  let ran = 0;
  const e = clock.schedule(clock.now() + 20, () => ran++);
  e.cancel();
  e.cancel();
  assert.equal(clock.pending, 0);
  assert.equal(timers.armed, 0, "the timer is disarmed with the last callback");
  timers.advance(40);
  assert.equal(ran, 0);
  let pastRan = false;
  clock.schedule(clock.now() - 1000, () => {
    pastRan = true;
  });
  timers.advance(0);
  assert.equal(pastRan, true);
});

test("a throwing callback does not stop the rest of its batch (virtual time)", () => {
  const errors: unknown[] = [];
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ onError: (err) => errors.push(err), timers });
  const at = clock.now() + 10;
  let second = false;
  clock.schedule(at, () => {
    throw new Error("boom");
  });
  clock.schedule(at, () => {
    second = true;
  });
  timers.advance(10);
  assert.equal(second, true);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /boom/);
});

test("on Node's own timers, callbacks run within their windows (the shipped timer code)", async () => {
  const clock = new CoalescingClock();
  const t0 = performance.now();
  const told = new Map<string, number>();
  const real = new Map<string, number>();
  const log = (name: string) => (now: number) => {
    told.set(name, now - t0);
    real.set(name, performance.now() - t0);
  };
  clock.schedule(t0 + 20, log("a"));
  clock.schedule(t0 + 35, log("b"), { early: 30 });
  await sleep(200);
  // never run more than Node's 1 ms timer resolution before a window opens (a timer firing earlier than that
  // leaves `a` for the next batch), never told a time before it; how late is the machine's business, and batching
  // is judged in virtual time above
  assert.ok((real.get("a") ?? 0) >= 19, `a ran at +${real.get("a")} ms`);
  assert.ok((told.get("a") ?? 0) >= 20, `a was told +${told.get("a")} ms`);
  assert.ok((real.get("b") ?? 0) >= 4, `b ran at +${real.get("b")} ms`);
  assert.equal(clock.pending, 0);
});

test("timerClock runs each callback on its own timer and cancels", async () => {
  let ran = 0;
  timerClock.schedule(timerClock.now() + 5, () => ran++);
  timerClock.schedule(timerClock.now() + 5, () => ran++).cancel();
  await sleep(30);
  assert.equal(ran, 1);
});

test("batch hooks run first in every batch, a throwing one does not stop it, and removal stops a hook", () => {
  const errors: unknown[] = [];
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ onError: (e) => errors.push(e), timers });
  const order: string[] = [];
  const removeA = clock.onBatch(() => order.push("hook a"));
  clock.onBatch(() => {
    throw new Error("hook b");
  });
  clock.schedule(clock.now() + 10, () => order.push("first batch"));
  timers.advance(40);
  removeA();
  clock.schedule(clock.now() + 5, () => order.push("second batch"));
  timers.advance(40);
  assert.deepEqual(order, ["hook a", "first batch", "second batch"]);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ["hook b", "hook b"],
  );
  assert.equal(timerClock.onBatch, undefined, "plain timers have no batches");
});
