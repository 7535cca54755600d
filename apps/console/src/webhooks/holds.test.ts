/**
 * Maintenance holds in virtual time: outside a window edges pass; a fired edge inside a matching window is held and
 * handed on at the close only if still firing, with its original firedAt; a resolve inside a window (or ending a
 * held alert) is never handed on; a window that does not match (other node, other pair, other target) holds
 * nothing; an extended window keeps holding; every held or dropped edge is counted.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AlertTransition } from "../alerts/poller.ts";
import { type WindowSpan, windowMatches } from "../maintenance/windows.ts";
import { VirtualScheduler } from "../testing/virtual-scheduler.ts";
import { MaintenanceGate } from "./holds.ts";

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const labels = { alertname: "svc_udp_loss", svc_rule_id: "r1", source_node: "a", destination_node: "b" };

function edge(event: AlertTransition["event"], at: number, firedAt = T0): AlertTransition {
  return {
    event,
    ruleId: "r1",
    labels,
    firedAt: new Date(firedAt).toISOString(),
    at: new Date(at).toISOString(),
  };
}

function win(over: Partial<WindowSpan>): WindowSpan {
  return {
    scope: "fleet",
    node: "",
    source: "",
    destination: "",
    target: "",
    startAt: T0,
    endAt: T0 + 10 * MIN,
    ...over,
  };
}

function setup(windows: WindowSpan[]) {
  const clock = new VirtualScheduler(T0);
  const out: AlertTransition[] = [];
  const suppressed: string[] = [];
  let firing = true;
  const gate = new MaintenanceGate({
    next: { transitions: (b) => void out.push(...b) },
    windows: async (l, at) => windows.filter((w) => w.startAt <= at && at < w.endAt && windowMatches(w, l)),
    stillFiring: () => firing,
    scheduler: clock,
    onSuppressed: (e) => void suppressed.push(e),
  });
  return {
    clock,
    gate,
    out,
    suppressed,
    stop() {
      firing = false;
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

test("scope matching: fleet, node (either end), pair (exact), target", () => {
  assert.ok(windowMatches(win({}), labels));
  assert.ok(windowMatches(win({ scope: "node", node: "b" }), labels));
  assert.ok(!windowMatches(win({ scope: "node", node: "c" }), labels));
  assert.ok(windowMatches(win({ scope: "pair", source: "a", destination: "b" }), labels));
  assert.ok(!windowMatches(win({ scope: "pair", source: "b", destination: "a" }), labels));
  assert.ok(windowMatches(win({ scope: "target", target: "https://x/" }), { target: "https://x/" }));
  assert.ok(!windowMatches(win({ scope: "target", target: "https://x/" }), labels));
});

test("outside any window edges pass at once", async () => {
  const h = setup([win({ startAt: T0 + 60 * MIN, endAt: T0 + 70 * MIN })]);
  await h.gate.transitions([edge("alert.fired", T0 + MIN)]);
  await h.gate.transitions([edge("alert.resolved", T0 + 2 * MIN)]);
  assert.deepEqual(
    h.out.map((t) => t.event),
    ["alert.fired", "alert.resolved"],
  );
  assert.deepEqual(h.suppressed, []);
});

test("held inside a window, delivered at close if still firing, with the original firedAt", async () => {
  const h = setup([win({ scope: "pair", source: "a", destination: "b" })]);
  const fired = edge("alert.fired", T0 + 2 * MIN, T0 + MIN);
  await h.gate.transitions([fired]);
  assert.equal(h.out.length, 0);
  assert.equal(h.gate.heldCount(), 1);
  h.clock.advance(10 * MIN - 1); // the window closes at T0 + 10 min
  await settle();
  assert.equal(h.out.length, 0, "not before the close");
  h.clock.advance(1);
  await settle();
  assert.deepEqual(h.out, [fired]);
  assert.deepEqual(h.suppressed, ["alert.fired"]);
  // its resolve after the window is delivered
  await h.gate.transitions([edge("alert.resolved", T0 + 20 * MIN, T0 + MIN)]);
  assert.deepEqual(
    h.out.map((t) => t.event),
    ["alert.fired", "alert.resolved"],
  );
});

test("not firing at the close: nothing; resolves inside a window never delivered", async () => {
  const h = setup([win({ scope: "node", node: "a" })]);
  await h.gate.transitions([edge("alert.fired", T0 + MIN)]);
  h.stop();
  h.clock.advance(10 * MIN);
  await settle();
  assert.deepEqual(h.out, [], "resolved by the close without a poll noticing: dropped");

  const h2 = setup([win({})]);
  await h2.gate.transitions([edge("alert.fired", T0 + MIN)]);
  await h2.gate.transitions([edge("alert.resolved", T0 + 3 * MIN)]);
  h2.clock.advance(60 * MIN);
  await settle();
  assert.deepEqual(h2.out, []);
  assert.deepEqual(h2.suppressed, ["alert.fired", "alert.resolved"]);
  assert.equal(h2.gate.heldCount(), 0);

  // fired before the window, resolved inside it: the resolve is not delivered
  const h3 = setup([win({ startAt: T0 + 5 * MIN })]);
  await h3.gate.transitions([edge("alert.fired", T0 + MIN)]);
  await h3.gate.transitions([edge("alert.resolved", T0 + 6 * MIN)]);
  assert.deepEqual(
    h3.out.map((t) => t.event),
    ["alert.fired"],
  );
  assert.deepEqual(h3.suppressed, ["alert.resolved"]);
});

test("a window that does not match holds nothing; overlapping windows hold to the last close", async () => {
  const h = setup([win({ scope: "node", node: "z" }), win({ scope: "target", target: "https://x/" })]);
  await h.gate.transitions([edge("alert.fired", T0 + MIN)]);
  assert.equal(h.out.length, 1);

  const h2 = setup([win({ endAt: T0 + 10 * MIN }), win({ scope: "node", node: "b", endAt: T0 + 30 * MIN })]);
  await h2.gate.transitions([edge("alert.fired", T0 + MIN)]);
  h2.clock.advance(20 * MIN);
  await settle();
  assert.equal(h2.out.length, 0);
  h2.clock.advance(10 * MIN);
  await settle();
  assert.equal(h2.out.length, 1);
});

test("a close while the firing state is unknown (no baseline yet) is asked again retryMs later", async () => {
  const clock = new VirtualScheduler(T0);
  const out: AlertTransition[] = [];
  let known: boolean | undefined;
  const gate = new MaintenanceGate({
    next: { transitions: (b) => void out.push(...b) },
    windows: async (l, at) => [win({})].filter((w) => w.startAt <= at && at < w.endAt && windowMatches(w, l)),
    stillFiring: () => known,
    scheduler: clock,
    retryMs: 30_000,
  });
  await gate.transitions([edge("alert.fired", T0 + MIN)]);
  clock.advance(10 * MIN);
  await settle();
  assert.equal(out.length, 0, "unknown: not delivered, not dropped");
  assert.equal(gate.heldCount(), 1);
  known = true;
  clock.advance(29_999);
  await settle();
  assert.equal(out.length, 0);
  clock.advance(1);
  await settle();
  assert.equal(out.length, 1);
  assert.equal(gate.heldCount(), 0);
});
