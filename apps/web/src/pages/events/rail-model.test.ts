import assert from "node:assert/strict";
import { test } from "node:test";
import type { FeedEvent } from "@svc/contract";
import type { FeedModel } from "./feed-model.ts";
import {
  concerns,
  emptyRail,
  type HistoryPage,
  RAIL_HISTORY,
  RAIL_PAGES_SCANNED,
  RAIL_RING,
  type RailObject,
  railHistory,
  railReceive,
  scanHistory,
} from "./rail-model.ts";

const T0 = Date.parse("2026-11-25T10:00:00Z");
function ev(i: number, scope: string): FeedEvent {
  return {
    id: `e${i}`,
    at: new Date(T0 + i * 1000).toISOString(),
    type: "TopologyChanged",
    severity: "info",
    scope,
    summary: `Topology changed: agent-joined ${scope}`,
    payload: {},
  };
}
const ids = (m: FeedModel) => m.rows.map((r) => (r.kind === "event" ? r.event.id : r.id));
const node1: RailObject = { kind: "node", name: "node-1" };
const pair12: RailObject = { kind: "pair", source: "node-1", destination: "node-2" };

/** The history API as the console answers it: scope substring, newest first, pages of `size` with a cursor. */
function history(all: FeedEvent[], size: number) {
  const reads: (string | undefined)[] = [];
  const fetchPage = async (cursor: string | undefined): Promise<HistoryPage> => {
    reads.push(cursor);
    const newestFirst = [...all].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
    const start = cursor === undefined ? 0 : Number(cursor);
    const events = newestFirst.slice(start, start + size);
    return { events, nextCursor: start + size < newestFirst.length ? String(start + size) : null };
  };
  return { fetchPage, reads };
}

test("a node's rail holds its own scope and pairs it is an end of, not a node whose name contains it", () => {
  assert.equal(concerns(node1, "node-1"), true);
  assert.equal(concerns(node1, "Node-1"), true);
  assert.equal(concerns(node1, "node-1->node-2"), true);
  assert.equal(concerns(node1, "node-2 -> node-1"), true);
  assert.equal(concerns(node1, "node-10"), false);
  assert.equal(concerns(node1, "node-10->node-2"), false);
  assert.equal(concerns(node1, "xnode-1"), false);
});

test("a pair's rail holds its exact scope, arrows written alike, not the reverse direction", () => {
  assert.equal(concerns(pair12, "node-1->node-2"), true);
  assert.equal(concerns(pair12, "node-1 => node-2"), true);
  assert.equal(concerns(pair12, "node-2->node-1"), false);
  assert.equal(concerns(pair12, "node-1->node-20"), false);
  assert.equal(concerns(pair12, "node-1"), false);
});

test("history: the newest 50 of the object, read past other objects the substring filter also answered", async () => {
  // newest first the history holds 300 events of node-10 (which `node-1` matches as a substring), then 80 of node-1
  const all = [
    ...Array.from({ length: 80 }, (_, i) => ev(i, i % 2 ? "node-1" : "node-1->node-3")),
    ...Array.from({ length: 300 }, (_, i) => ev(1000 + i, "node-10")),
  ];
  const h = history(all, 200);
  const got = await scanHistory(node1, h.fetchPage);
  assert.equal(got.cut, false);
  assert.equal(got.events.length, RAIL_HISTORY);
  assert.deepEqual(
    got.events.map((e) => e.id),
    Array.from({ length: RAIL_HISTORY }, (_, i) => `e${79 - i}`),
    "the newest 50 of node-1, newest first",
  );
  assert.deepEqual(h.reads, [undefined, "200"]);
});

test("history: the scan stops at its page bound and says so; ends early when history ends", async () => {
  const crowded = history(
    [ev(1, "node-1"), ...Array.from({ length: 2000 }, (_, i) => ev(10 + i, "node-10"))],
    200,
  );
  const cut = await scanHistory(node1, crowded.fetchPage);
  assert.equal(cut.cut, true);
  assert.equal(crowded.reads.length, RAIL_PAGES_SCANNED);
  assert.deepEqual(cut.events, []);

  const short = history([ev(1, "node-1"), ev(2, "node-10")], 200);
  const all = await scanHistory(node1, short.fetchPage);
  assert.equal(all.cut, false);
  assert.deepEqual(
    all.events.map((e) => e.id),
    ["e1"],
  );
  assert.equal(short.reads.length, 1);
});

test("live events of the object merge with history newest first, others are dropped, duplicates shown once", () => {
  let m = emptyRail();
  m = railReceive(m, node1, ev(100, "node-1"));
  m = railReceive(m, node1, ev(101, "node-10"));
  m = railHistory(m, { events: [ev(100, "node-1"), ev(50, "node-2->node-1"), ev(40, "node-1")], cut: false });
  m = railReceive(m, node1, ev(102, "node-1->node-4"));
  m = railReceive(m, node1, ev(102, "node-1->node-4"));
  assert.deepEqual(ids(m), ["e102", "e100", "e50", "e40"]);
});

test("the rail keeps at most 200 rows, the newest", () => {
  let m = railHistory(emptyRail(), {
    events: Array.from({ length: RAIL_HISTORY }, (_, i) => ev(i, "node-1")).reverse(),
    cut: false,
  });
  for (let i = 0; i < RAIL_RING; i++) m = railReceive(m, node1, ev(1000 + i, "node-1"));
  assert.equal(m.held, RAIL_RING);
  assert.equal(ids(m)[0], `e${1000 + RAIL_RING - 1}`);
  assert.equal(ids(m).at(-1), "e1000", "the stored ones fell out first");
});
