import assert from "node:assert/strict";
import { test } from "node:test";
import type { FeedEvent } from "@svc/contract";
import {
  counterLine,
  EMPTY_FEED,
  type FeedModel,
  feedBadge,
  gap,
  loadOlderRefusal,
  matches,
  NO_FILTERS,
  older,
  pause,
  RING_CAP,
  receive,
  resume,
  severityLabel,
  visible,
} from "./feed-model.ts";

const T0 = Date.parse("2026-11-25T10:00:00Z");
function ev(i: number, over: Partial<FeedEvent> = {}): FeedEvent {
  return {
    id: `e${i}`,
    at: new Date(T0 + i * 1000).toISOString(),
    type: "TopologyChanged",
    severity: "info",
    scope: `node-${i % 3}`,
    summary: `Topology changed ${i}`,
    payload: {},
    ...over,
  };
}
const ids = (m: FeedModel) => m.rows.map((r) => (r.kind === "event" ? r.event.id : r.id));

test("live events show newest first and a replayed one is not shown twice", () => {
  let m = receive(receive(EMPTY_FEED, ev(1)), ev(2));
  m = receive(m, ev(1));
  assert.deepEqual(ids(m), ["e2", "e1"]);
  assert.equal(m.held, 2);
});

test("paused: events buffer with a count and join the list on resume", () => {
  let m = pause(receive(EMPTY_FEED, ev(1)));
  m = receive(receive(m, ev(2)), ev(3));
  assert.deepEqual(ids(m), ["e1"]);
  assert.equal(m.buffered.length, 2);
  m = resume(m);
  assert.deepEqual(ids(m), ["e3", "e2", "e1"]);
  assert.equal(m.buffered.length, 0);
});

test("the ring keeps the newest 2000 events; older pages merge by time", () => {
  let m = EMPTY_FEED;
  for (let i = 0; i < RING_CAP + 5; i++) m = receive(m, ev(i));
  assert.equal(m.held, RING_CAP);
  assert.equal(ids(m).at(-1), "e5", "the 5 oldest fell out");
  assert.match(loadOlderRefusal(m) ?? "", /full at the cap of 2000/);
  const small = older(receive(EMPTY_FEED, ev(10)), [ev(4), ev(3)], "c1");
  assert.deepEqual(ids(small), ["e10", "e4", "e3"]);
  assert.equal(loadOlderRefusal(small), undefined);
  assert.equal(loadOlderRefusal(older(small, [], null)), "No older events are stored.");
});

test("a gap is a row where it was noticed and passes every filter", () => {
  let m = receive(EMPTY_FEED, ev(1));
  m = gap(m, { from: 5, to: 9, reason: "other-replica" }, T0 + 1500);
  m = receive(m, ev(2));
  assert.deepEqual(
    m.rows.map((r) => r.kind),
    ["event", "gap", "event"],
  );
  assert.equal(m.held, 2);
  assert.equal(visible(m, { severity: "error", type: "", scope: "" }).length, 1);
});

test("filters: severity, type, and scope with pair spellings alike", () => {
  const pair = { kind: "event" as const, at: 0, event: ev(1, { scope: "Node-1->node-2", severity: "warn" }) };
  for (const scope of ["node-1->node-2", "node-1 => node-2", "NODE-1 > node-2", "1->node", "node-2"])
    assert.ok(matches(pair, { ...NO_FILTERS, scope }), scope);
  assert.ok(!matches(pair, { ...NO_FILTERS, scope: "node-2->node-1" }));
  assert.ok(matches(pair, { ...NO_FILTERS, severity: "warn" }));
  assert.ok(!matches(pair, { ...NO_FILTERS, severity: "info" }));
  assert.ok(!matches(pair, { ...NO_FILTERS, type: "CheckObserved" }));
});

test("counter line, badges and raw severities", () => {
  let m = EMPTY_FEED;
  for (let i = 0; i < 6; i++) m = receive(m, ev(i, { severity: i % 2 ? "warn" : "info" }));
  assert.equal(counterLine(m, { ...NO_FILTERS, severity: "warn" }), "Showing 3 of 6 events · capped at 2000");
  assert.equal(feedBadge(false, true, true), "Live");
  assert.equal(feedBadge(false, true, false), "Delayed data");
  assert.equal(feedBadge(false, false, true), "Delayed data");
  assert.equal(feedBadge(true, true, true), "Paused · socket live");
  assert.equal(feedBadge(true, false, null), "Paused · socket down");
  assert.equal(severityLabel("warn"), "Warn");
  assert.equal(severityLabel("critical"), "critical");
});
