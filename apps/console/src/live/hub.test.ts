/**
 * LiveHub without sockets: per-topic seq, replay from the ring on the same replica, gaps for another replica's
 * cursor and beyond the ring, slow consumers skipped then told a gap, upstream losses, status, topology pushes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FeedEvent, WsServerMessage } from "@svc/contract";
import { type LiveClient, LiveHub, WS_IDLE_RUN_TOPICS } from "./hub.ts";

class FakeClient implements LiveClient {
  bufferedAmount = 0;
  readonly got: WsServerMessage[] = [];
  send(frame: Buffer): void {
    this.got.push(JSON.parse(frame.toString()) as WsServerMessage);
  }
  take(): WsServerMessage[] {
    return this.got.splice(0);
  }
}

const ev = (id: string, type = "CheckObserved"): FeedEvent => ({
  id,
  at: "2026-01-01T00:00:00.000Z",
  type,
  severity: "info",
  scope: "a->b",
  summary: `${type} ${id}`,
  payload: {},
});

const seqs = (msgs: WsServerMessage[]) =>
  msgs.map((m) =>
    m.type === "event" ? m.seq : m.type === "gap" ? `gap ${m.from}-${m.to} ${m.reason}` : m.type,
  );

test("a new socket gets the status; a subscription its topic's seq and this replica's id, then events +1", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  hub.event(ev("e0"));
  const c = new FakeClient();
  hub.attach(c);
  assert.deepEqual(c.take(), [{ type: "status", fed: false, since: null }]);
  hub.subscribe(c, { type: "subscribe", topic: "live" });
  assert.deepEqual(c.take(), [{ type: "subscribed", topic: "live", seq: 1, replica: "r1" }]);
  hub.event(ev("e1"));
  hub.event(ev("e2"));
  const got = c.take();
  assert.deepEqual(seqs(got), [2, 3]);
  assert.deepEqual((got[0] as { data: FeedEvent }).data.id, "e1");
  hub.unsubscribe(c, "live");
  hub.event(ev("e3"));
  assert.deepEqual(c.take(), []);
});

test("same replica within the ring: replay after `since`, then live; nothing to replay at the head", () => {
  const hub = new LiveHub({ replicaId: "r1", ringSize: 10 });
  for (let i = 1; i <= 5; i++) hub.event(ev(`e${i}`));
  const c = new FakeClient();
  hub.attach(c);
  c.take();
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 2, replica: "r1" });
  hub.event(ev("e6"));
  assert.deepEqual(seqs(c.take()), ["subscribed", 3, 4, 5, 6]);
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 6, replica: "r1" });
  assert.deepEqual(seqs(c.take()), ["subscribed"]);
});

test("same replica beyond the ring: gap beyond-ring, then what the ring holds", () => {
  const hub = new LiveHub({ replicaId: "r1", ringSize: 3 });
  for (let i = 1; i <= 10; i++) hub.event(ev(`e${i}`));
  const c = new FakeClient();
  hub.attach(c);
  c.take();
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 4, replica: "r1" });
  assert.deepEqual(seqs(c.take()), ["subscribed", "gap 5-7 beyond-ring", 8, 9, 10]);
});

test("another replica's cursor (or none named): subscribed and gap other-replica, no replay", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  for (let i = 1; i <= 5; i++) hub.event(ev(`e${i}`));
  const c = new FakeClient();
  hub.attach(c);
  c.take();
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 2, replica: "r2" });
  assert.deepEqual(seqs(c.take()), ["subscribed", "gap 3-5 other-replica"]);
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 2 });
  assert.deepEqual(seqs(c.take()), ["subscribed", "gap 3-5 other-replica"]);
  // a cursor ahead of this replica's seq was not issued here
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 99, replica: "r1" });
  assert.deepEqual(seqs(c.take()), ["subscribed", "gap 100-100 other-replica"]);
});

test("a slow consumer is skipped (not buffered) and told a slow-consumer gap once it drained", () => {
  const hub = new LiveHub({ replicaId: "r1", slowBytes: 1000 });
  const slow = new FakeClient();
  const fast = new FakeClient();
  for (const c of [slow, fast]) {
    hub.attach(c);
    hub.subscribe(c, { type: "subscribe", topic: "live" });
    c.take();
  }
  hub.event(ev("e1"));
  slow.bufferedAmount = 5000;
  hub.event(ev("e2"));
  hub.event(ev("e3"));
  assert.deepEqual(seqs(slow.take()), [1]);
  slow.bufferedAmount = 800; // below the bound, above half of it: still lagging
  hub.event(ev("e4"));
  hub.sweep();
  assert.deepEqual(seqs(slow.take()), []);
  slow.bufferedAmount = 0;
  hub.event(ev("e5"));
  assert.deepEqual(seqs(slow.take()), ["gap 2-4 slow-consumer", 5]);
  assert.deepEqual(seqs(fast.take()), [1, 2, 3, 4, 5]);
  // a quiet topic: the sweep reports the gap
  slow.bufferedAmount = 5000;
  hub.event(ev("e6"));
  slow.bufferedAmount = 0;
  hub.sweep();
  assert.deepEqual(seqs(slow.take()), ["gap 6-6 slow-consumer"]);
});

test("upstream losses become a gap on live that takes their seq numbers and is replayed", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  const c = new FakeClient();
  hub.attach(c);
  hub.subscribe(c, { type: "subscribe", topic: "live" });
  c.take();
  hub.event(ev("e1"));
  hub.missed(3);
  hub.event(ev("e5"));
  assert.deepEqual(seqs(c.take()), [1, "gap 2-4 upstream", 5]);
  const late = new FakeClient();
  hub.attach(late);
  hub.subscribe(late, { type: "subscribe", topic: "live", since: 1, replica: "r1" });
  assert.deepEqual(seqs(late.take()), ["status", "subscribed", "gap 2-4 upstream", 5]);
});

test("fed changes reach every socket once; TopologyChanged also goes to topology", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  const c = new FakeClient();
  hub.attach(c);
  hub.subscribe(c, { type: "subscribe", topic: "topology" });
  c.take();
  hub.fed(true, Date.UTC(2026, 0, 1));
  hub.fed(true, Date.UTC(2026, 0, 2));
  hub.fed(false, Date.UTC(2026, 0, 3));
  assert.deepEqual(c.take(), [
    { type: "status", fed: true, since: "2026-01-01T00:00:00.000Z" },
    { type: "status", fed: false, since: "2026-01-03T00:00:00.000Z" },
  ]);
  hub.event(ev("c1"));
  hub.event(ev("t1", "TopologyChanged"));
  const got = c.take();
  assert.equal(got.length, 1);
  assert.deepEqual(got[0], {
    type: "event",
    topic: "topology",
    seq: 1,
    data: { at: "2026-01-01T00:00:00.000Z", event: ev("t1", "TopologyChanged") },
  });
});

test("run topics: publish before anyone subscribes is replayable; idle run topics stay bounded", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  hub.publish("run:abc", { done: 1 });
  const c = new FakeClient();
  hub.attach(c);
  hub.subscribe(c, { type: "subscribe", topic: "run:abc", since: 0, replica: "r1" });
  assert.deepEqual(seqs(c.take()), ["status", "subscribed", 1]);
  for (let i = 0; i < WS_IDLE_RUN_TOPICS + 50; i++) hub.publish(`run:r${i}`, {});
  // the held topic survives, the oldest idle ones are gone
  hub.publish("run:abc", { done: 2 });
  assert.deepEqual(seqs(c.take()), [2]);
  const d = new FakeClient();
  hub.attach(d);
  hub.subscribe(d, { type: "subscribe", topic: "run:r0", since: 0, replica: "r1" });
  assert.deepEqual(seqs(d.take()), ["status", "subscribed"]);
  hub.detach(c);
  hub.publish("run:abc", { done: 3 });
  assert.deepEqual(c.take(), []);
});

test("a publication goes through the bus when there is one", () => {
  const hub = new LiveHub({ replicaId: "r1" });
  const sent: string[] = [];
  hub.useBus({ kind: "redis", publish: (topic) => sent.push(topic) });
  hub.publish("live", ev("a1"));
  assert.deepEqual(sent, ["live"]);
  assert.equal(hub.subscribers("live"), 0);
});

test("a replay may queue up to the replay bound; live events after it keep the tighter bound", () => {
  const hub = new LiveHub({ replicaId: "r1", slowBytes: 1000, replayBytes: 100_000 });
  for (let i = 1; i <= 20; i++) hub.event(ev(`e${i}`));
  const c = new FakeClient();
  const send = c.send.bind(c);
  c.send = (frame: Buffer) => {
    c.bufferedAmount += frame.length;
    send(frame);
  };
  hub.attach(c);
  hub.subscribe(c, { type: "subscribe", topic: "live", since: 0, replica: "r1" });
  assert.ok(c.bufferedAmount > 1000);
  assert.equal(c.take().filter((m) => m.type === "event").length, 20);
  hub.event(ev("e21"));
  assert.deepEqual(c.take(), []);
  c.bufferedAmount = 0;
  hub.event(ev("e22"));
  assert.deepEqual(seqs(c.take()), ["gap 21-21 slow-consumer", 22]);
});
