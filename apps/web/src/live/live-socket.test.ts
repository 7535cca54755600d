// LiveSocket in virtual time over a scripted socket (the browser's WebSocket is not available in Node): backoff,
// resubscription with the last seq and replica, gaps, idle close.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  IDLE_CLOSE_MS,
  LiveSocket,
  type LiveTimers,
  type SocketLike,
  type TopicSignal,
} from "./live-socket.ts";

class VirtualTimers implements LiveTimers {
  now = 0;
  #seq = 0;
  #due = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#seq;
    this.#due.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.#due.delete(h as number);
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.#due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.#due.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
    }
    this.now = end;
  }
  get pending(): number {
    return this.#due.size;
  }
}

class ScriptedSocket implements SocketLike {
  readyState = 0;
  onopen: SocketLike["onopen"] = null;
  onclose: SocketLike["onclose"] = null;
  onmessage: SocketLike["onmessage"] = null;
  onerror: SocketLike["onerror"] = null;
  sent: unknown[] = [];
  closed = false;
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000): void {
    if (this.closed) return;
    this.closed = true;
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(msg: unknown): void {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
}

function rig() {
  const timers = new VirtualTimers();
  const sockets: ScriptedSocket[] = [];
  const opens: number[] = [];
  const live = new LiveSocket({
    timers,
    open: () => {
      const s = new ScriptedSocket();
      sockets.push(s);
      opens.push(timers.now);
      return s;
    },
  });
  return { timers, sockets, opens, live, last: () => sockets[sockets.length - 1] as ScriptedSocket };
}

test("subscribes on open, hears events, resubscribes with the last seq and replica after a drop", () => {
  const { live, last, timers, sockets } = rig();
  const heard: TopicSignal[] = [];
  live.subscribe("live", (s) => heard.push(s));
  last().open();
  assert.deepEqual(last().sent, [{ type: "subscribe", topic: "live" }]);
  last().push({ type: "subscribed", topic: "live", seq: 7, replica: "r1" });
  last().push({ type: "event", topic: "live", seq: 8, data: { n: 8 } });
  last().push({ type: "event", topic: "live", seq: 8, data: { n: 8 } }); // replay overlap: dropped
  last().close(1006);
  assert.equal(live.state.connected, false);
  timers.advance(999);
  assert.equal(sockets.length, 1);
  timers.advance(1);
  assert.equal(sockets.length, 2, "reconnects after 1 s");
  last().open();
  assert.deepEqual(last().sent, [{ type: "subscribe", topic: "live", since: 8, replica: "r1" }]);
  last().push({ type: "subscribed", topic: "live", seq: 9, replica: "r1" });
  last().push({ type: "event", topic: "live", seq: 9, data: { n: 9 } });
  last().push({ type: "event", topic: "live", seq: 12, data: { n: 12 } });
  assert.deepEqual(
    heard.map((h) => (h.kind === "event" ? h.seq : h.kind === "gap" ? `gap ${h.from}-${h.to}` : h.kind)),
    ["subscribed", 8, "subscribed", 9, "gap 10-11", 12],
  );
});

test("reconnect backs off 1, 2, 4, 8, 15, 15 s and resets after an open", () => {
  const { live, last, timers, sockets } = rig();
  live.subscribe("topology", () => {});
  // the socket fails before it opens, again and again: each wait doubles up to 15 s
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    const n = sockets.length;
    const closedAt = timers.now;
    last().close(1006);
    while (sockets.length === n) timers.advance(100);
    waits.push(timers.now - closedAt);
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 15000, 15000]);
  last().open();
  const n = sockets.length;
  last().close(1006);
  timers.advance(1000);
  assert.equal(sockets.length, n + 1, "back to 1 s after a successful open");
});

test("another replica's cursor: a fresh numbering and the gap it reports", () => {
  const { live, last, timers } = rig();
  const heard: TopicSignal[] = [];
  live.subscribe("live", (s) => heard.push(s));
  last().open();
  last().push({ type: "subscribed", topic: "live", seq: 40, replica: "r1" });
  last().push({ type: "event", topic: "live", seq: 41, data: {} });
  last().close(1006);
  timers.advance(1000);
  last().open();
  last().push({ type: "subscribed", topic: "live", seq: 3, replica: "r2" });
  // the server names our cursor + 1 as `from` and may put it in `to` too (another numbering): not a position
  last().push({ type: "gap", topic: "live", from: 42, to: 42, reason: "other-replica" });
  last().push({ type: "event", topic: "live", seq: 4, data: {} });
  assert.deepEqual(
    heard.map((h) => (h.kind === "event" ? h.seq : h.kind === "gap" ? h.reason : h.kind)),
    ["subscribed", 41, "subscribed", "other-replica", 4],
  );
});

test("status messages set fed; the socket closes 30 s after the last subscription ends", () => {
  const { live, last, timers, sockets } = rig();
  const states: string[] = [];
  live.onState((s) => states.push(`${s.connected}/${s.fed}`));
  const off = live.subscribe("matrix", () => {});
  last().open();
  last().push({ type: "status", fed: false, since: null });
  last().push({ type: "status", fed: true, since: null });
  off();
  assert.deepEqual(last().sent.at(-1), { type: "unsubscribe", topic: "matrix" });
  timers.advance(IDLE_CLOSE_MS - 1);
  assert.equal(last().closed, false);
  const again = live.subscribe("matrix", () => {});
  timers.advance(IDLE_CLOSE_MS);
  assert.equal(last().closed, false, "a new subscription cancels the idle close");
  again();
  timers.advance(IDLE_CLOSE_MS);
  assert.equal(last().closed, true);
  assert.equal(sockets.length, 1, "no reconnect after an idle close");
  assert.equal(timers.pending, 0);
  assert.deepEqual(states, ["true/null", "true/false", "true/true", "false/null"]);
});

test("malformed server messages are ignored", () => {
  const { live, last } = rig();
  const heard: TopicSignal[] = [];
  live.subscribe("live", (s) => heard.push(s));
  last().open();
  last().onmessage?.({ data: "{not json" });
  last().push({ type: "event", topic: "live" });
  last().push({ type: "event", topic: "other", seq: 1, data: {} });
  assert.deepEqual(heard, []);
});
