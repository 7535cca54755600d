import assert from "node:assert/strict";
import { test } from "node:test";
import { CoalescingClock } from "../clock/probe-clock.ts";
import { VirtualTimers } from "../clock/testdata/virtual-timers.ts";
import { PeriodicTask } from "./periodic-task.ts";

test("a start allowed to run early joins another's wake-up with lateness 0, and its grid does not move (virtual time)", () => {
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ timers });
  const t0 = clock.now();
  const fired: { task: string; at: number; lateness: number }[] = [];
  const task = (name: string, phaseMs: number, earlyMs: number) =>
    new PeriodicTask({
      intervalMs: 200,
      phaseMs,
      earlyMs,
      clock,
      tick: (lateness) => fired.push({ task: name, at: clock.now() - t0, lateness }),
    });
  const a = task("a", 50, 0);
  const b = task("b", 90, 60); // may start from +30: runs with a at +50, then at ~+250 (planned +290)
  a.start();
  b.start();
  timers.advance(330);
  a.stop();
  b.stop();
  const starts = (name: string) => fired.filter((f) => f.task === name);
  assert.equal(starts("a").length, 2);
  assert.equal(starts("b").length, 2);
  for (const i of [0, 1]) {
    const fa = starts("a")[i];
    const fb = starts("b")[i];
    assert.ok(fa && fb);
    assert.equal(fa.at, fb.at, `start ${i}: a at ${fa.at}, b at ${fb.at}`);
    assert.equal(fb.lateness, 0);
  }
  // b's second start belongs to its own grid (+290), 40 ms early with a's (+250): not +250+200 or later
  assert.ok((starts("b")[1]?.at ?? 0) < 290, `b's second start at +${starts("b")[1]?.at}`);
  assert.equal(clock.pending, 0, "stop cancels the next starts");
  assert.equal(timers.armed, 0, "no timer left armed");
});
