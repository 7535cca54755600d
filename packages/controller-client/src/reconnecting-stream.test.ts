import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { after, test } from "node:test";
import { grpc } from "@svc/protocol";
import { ControllerChannel } from "./controller-channel.ts";
import { ManualClock } from "./manual-clock.ts";
import {
  ReconnectingStream,
  type ReconnectingStreamOptions,
  type StreamBreak,
  type StreamCall,
} from "./reconnecting-stream.ts";
import {
  dialTestStream,
  startTestStreamServer,
  type TestMessage,
  type TestStreamServer,
} from "./testdata/stream-server.ts";

// Waits are in virtual time (ManualClock); real time only passes for loopback I/O, awaited by condition.

const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.reverse()) c();
});

/** Waits for loopback I/O to make `cond` true (a condition, not a time window; 5 s is only a failure bound). */
async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A stand-in server stream, for the tests that need no network. */
class FakeCall extends EventEmitter implements StreamCall<TestMessage> {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
    this.emit("error", { code: grpc.status.CANCELLED, details: "Cancelled on client" });
  }
  fail(details = "boom"): void {
    this.emit("error", { code: grpc.status.UNAVAILABLE, details });
  }
}

function harness(over: Partial<ReconnectingStreamOptions<TestMessage>> = {}) {
  const clock = new ManualClock();
  const calls: FakeCall[] = [];
  const got: number[] = [];
  const breaks: StreamBreak[] = [];
  const stream = new ReconnectingStream<TestMessage>({
    name: "test",
    open: () => {
      const c = new FakeCall();
      calls.push(c);
      return c;
    },
    onMessage: (m) => got.push(m.n),
    onBreak: (b) => breaks.push(b),
    clock,
    random: () => 0,
    ...over,
  });
  cleanups.push(() => stream.stop());
  const last = (): FakeCall => {
    const c = calls.at(-1);
    assert.ok(c);
    return c;
  };
  return { clock, calls, got, breaks, stream, last };
}

test("backoff 2, 4, 8, 16, 30, 30 s; jitter takes off at most 25 %; a throwing open() is a failure too", () => {
  const h = harness();
  h.stream.start();
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    assert.equal(h.calls.length, i + 1);
    h.last().fail();
    assert.equal(h.stream.state(), "waiting");
    const wait = h.clock.nextDelay() ?? -1;
    waits.push(wait);
    h.clock.advance(wait - 1);
    assert.equal(h.calls.length, i + 1, "no attempt before the wait is over");
    h.clock.advance(1);
  }
  assert.deepEqual(waits, [2000, 4000, 8000, 16000, 30000, 30000]);
  assert.deepEqual(
    h.breaks.map((b) => b.retryInMs),
    waits,
  );

  // jitter: a seeded source in [0, 1); every wait within [75 %, 100 %] of the step
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 16807) % 2147483647;
    return (seed - 1) / 2147483646;
  };
  let throws = 0;
  const j = harness({
    random: rnd,
    open: () => {
      throws++;
      throw new Error("dial refused");
    },
  });
  j.stream.start();
  const steps = [2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000];
  for (const step of steps) {
    const wait = j.clock.nextDelay() ?? -1;
    assert.ok(wait >= step * 0.75 && wait <= step, `${wait} within [${step * 0.75}, ${step}]`);
    j.clock.advance(wait);
  }
  assert.equal(throws, steps.length + 1);
  assert.equal(j.breaks[0]?.reason, "dial refused");
  const low = harness({ random: () => 0.999999 });
  low.stream.start();
  low.last().fail();
  assert.equal(low.clock.nextDelay(), 1500);
});

test("the backoff starts over after a stream that delivered or stayed up 30 s; headers alone do not count", () => {
  const h = harness();
  h.stream.start();
  for (let i = 0; i < 3; i++) {
    h.last().fail();
    h.clock.advance(h.clock.nextDelay() ?? 0);
  }
  // fourth attempt delivers, then breaks: back to 2 s
  h.last().emit("data", { n: 1 });
  assert.deepEqual(h.got, [1]);
  assert.equal(h.stream.connected(), true);
  h.last().fail();
  assert.equal(h.breaks.at(-1)?.healthy, true);
  assert.equal(h.clock.nextDelay(), 2000);
  h.clock.advance(2000);
  // headers, then dropped after 1 s: not healthy, the backoff grows
  h.last().emit("metadata", {});
  assert.equal(h.stream.connected(), true);
  h.clock.advance(1000);
  h.last().fail();
  assert.equal(h.breaks.at(-1)?.healthy, false);
  assert.equal(h.clock.nextDelay(), 4000);
  h.clock.advance(4000);
  // open for 30 s without a message: healthy
  h.clock.advance(30_000);
  h.last().emit("end");
  assert.equal(h.breaks.at(-1)?.reason, "stream ended");
  assert.equal(h.breaks.at(-1)?.healthy, true);
  assert.equal(h.clock.nextDelay(), 2000);
});

test("stop(): during a wait, while streaming, while opening; nothing runs afterwards", async () => {
  const h = harness();
  h.stream.start();
  h.last().fail();
  assert.equal(h.clock.pendingCount(), 1);
  h.stream.stop();
  assert.equal(h.stream.state(), "stopped");
  assert.equal(h.clock.pendingCount(), 0, "no timer left");
  h.clock.advance(120_000);
  assert.equal(h.calls.length, 1, "no reconnect after stop");

  const s = harness();
  s.stream.start();
  s.stream.stop();
  assert.equal(s.last().cancelled, true, "no stream left");
  s.last().emit("data", { n: 9 });
  assert.deepEqual(s.got, []);
  assert.equal(s.clock.pendingCount(), 0);

  let resolve: (c: FakeCall) => void = () => {};
  const late = new FakeCall();
  const o = harness({ open: () => new Promise<FakeCall>((r) => (resolve = r)) });
  o.stream.start();
  assert.equal(o.stream.state(), "opening");
  o.stream.stop();
  resolve(late);
  await new Promise((r) => setImmediate(r));
  assert.equal(late.cancelled, true, "a stream opened after stop is cancelled");
  assert.equal(o.clock.pendingCount(), 0);
});

test("open() returning undefined (not ready) polls without counting a failure; reconnect() replaces the stream", async () => {
  let ready = false;
  const h = harness();
  const calls: FakeCall[] = [];
  const r = harness({
    notReadyPollMs: 250,
    open: () => {
      if (!ready) return undefined;
      const c = new FakeCall();
      calls.push(c);
      return c;
    },
  });
  r.stream.start();
  assert.equal(r.clock.nextDelay(), 250);
  r.clock.advance(250);
  ready = true;
  r.clock.advance(250);
  assert.equal(calls.length, 1);
  calls[0]?.fail();
  assert.equal(r.clock.nextDelay(), 2000, "the first failure waits the first step");

  h.stream.start();
  const first = h.last();
  h.stream.reconnect();
  assert.equal(first.cancelled, true);
  assert.equal(h.calls.length, 2, "replaced at once");
  assert.equal(h.breaks.length, 0, "not a failure");
  first.emit("data", { n: 1 });
  assert.deepEqual(h.got, [], "the old stream is not listened to");
  h.last().fail();
  h.stream.reconnect();
  assert.equal(h.calls.length, 2, "no-op while waiting");

  // while opening: the stream being opened is dropped for a new one
  const opened: FakeCall[] = [];
  let resolveOpen: (c: FakeCall) => void = () => {};
  const a = harness({
    open: () =>
      new Promise<FakeCall>((res) => {
        resolveOpen = (c) => {
          opened.push(c);
          res(c);
        };
      }),
  });
  a.stream.start();
  a.stream.reconnect();
  resolveOpen(new FakeCall());
  await new Promise((res) => setImmediate(res));
  assert.equal(opened[0]?.cancelled, true);
  assert.equal(a.stream.state(), "opening", "a second open is under way");
});

/** A ReconnectingStream over the fixture's real gRPC stream; `target()` is where a (re)dial goes. */
function realStream(target: () => string) {
  const clock = new ManualClock();
  const got: number[] = [];
  const breaks: StreamBreak[] = [];
  const channel = new ControllerChannel(() => dialTestStream(target()));
  const stream = new ReconnectingStream<TestMessage>({
    name: "real",
    open: () => channel.get().Watch({ who: "agent" }),
    onMessage: (m) => got.push(m.n),
    onBreak: (b) => breaks.push(b),
    channel,
    clock,
    random: () => 0,
  });
  cleanups.push(
    () => stream.stop(),
    () => channel.close(),
  );
  return { clock, got, breaks, stream, channel };
}

async function server(port = 0): Promise<TestStreamServer> {
  const s = await startTestStreamServer(port);
  cleanups.push(() => s.close());
  return s;
}

test("controller restart: the server stops and comes back on the same port; the stream returns after the wait", async () => {
  const first = await server();
  const r = realStream(() => first.address);
  r.stream.start();
  await until("connected", () => r.stream.connected() && first.open() === 1);
  first.send(1);
  await until("first message", () => r.got.length === 1);
  first.close();
  await until("broken", () => r.stream.state() === "waiting");
  // grpc-js' forceShutdown cancels the streams (CANCELLED); a killed process gives UNAVAILABLE: both break it
  assert.ok([grpc.status.CANCELLED, grpc.status.UNAVAILABLE].some((c) => c === r.breaks[0]?.code));
  assert.equal(r.breaks[0]?.healthy, true);
  assert.equal(r.clock.nextDelay(), 2000);
  const second = await server(first.port);
  r.clock.advance(1999);
  assert.equal(second.opened, 0, "nothing before the wait is over");
  r.clock.advance(1);
  await until("reconnected", () => r.stream.connected() && second.open() === 1);
  second.send(2);
  await until("message from the new server", () => r.got.includes(2));
  r.stream.stop();
  await until("the server sees the stream go", () => second.open() === 0);
  assert.equal(r.clock.pendingCount(), 0);
});

test("leader change: `not the leader` is handled like any break, and the channel is re-dialled to the new leader", async () => {
  const a = await server();
  const b = await server();
  let leader = a.address;
  const r = realStream(() => leader);
  r.stream.start();
  await until("connected to a", () => r.stream.connected() && a.open() === 1);
  // a loses the lease; the controller address now leads to b
  a.standby = true;
  leader = b.address;
  a.end();
  await until("end seen", () => r.stream.state() === "waiting");
  assert.equal(r.breaks[0]?.reason, "stream ended");
  r.clock.advance(r.clock.nextDelay() ?? 0);
  await until("a answers not the leader", () => r.breaks.length === 2);
  assert.equal(a.opened, 2, "the same connection still led to a");
  assert.deepEqual(
    { code: r.breaks[1]?.code, notLeader: r.breaks[1]?.notLeader, reason: r.breaks[1]?.reason },
    { code: grpc.status.UNAVAILABLE, notLeader: true, reason: "not the leader" },
  );
  r.clock.advance(r.clock.nextDelay() ?? 0);
  await until("connected to b", () => r.stream.connected() && b.open() === 1);
  b.send(7);
  await until("message from b", () => r.got.includes(7));
  assert.equal(a.opened, 2);
});

test("stream reset: a stream the server resets mid-flight is re-opened after the wait", async () => {
  const s = await server();
  const r = realStream(() => s.address);
  r.stream.start();
  await until("connected", () => r.stream.connected() && s.open() === 1);
  s.send(1);
  await until("message", () => r.got.length === 1);
  s.reset();
  await until("broken", () => r.stream.state() === "waiting");
  assert.notEqual(r.breaks[0]?.code, grpc.status.OK);
  assert.equal(r.clock.nextDelay(), 2000);
  r.clock.advance(2000);
  await until("re-opened", () => r.stream.connected() && s.open() === 1);
  assert.equal(s.opened, 2);
  s.send(2);
  await until("message after the reset", () => r.got.includes(2));
});

test("a controller that answers again ends the wait at once and resets the backoff; one that answered is waited for", () => {
  let reachable = false;
  const pending: (() => void)[] = [];
  let unwatched = 0;
  const channel = {
    redial: () => {},
    whenAnswering: (cb: () => void) => {
      if (reachable) return undefined;
      pending.push(cb);
      return () => unwatched++;
    },
  };
  const h = harness({ channel });
  h.stream.start();
  for (let i = 0; i < 5; i++) {
    h.last().fail("connect ECONNREFUSED");
    h.clock.advance(h.clock.nextDelay() ?? 0);
  }
  h.last().fail("connect ECONNREFUSED");
  assert.equal(h.clock.nextDelay(), 30_000);
  const attempts = h.calls.length;
  // the channel connects again: the next attempt opens now, with no virtual time passing
  pending.at(-1)?.();
  assert.equal(h.calls.length, attempts + 1);
  assert.equal(h.stream.state(), "streaming");
  // and the backoff started over
  h.last().fail("connect ECONNREFUSED");
  assert.equal(h.clock.nextDelay(), 2000);
  // a stale readiness callback from an earlier wait changes nothing
  const before = h.calls.length;
  pending[0]?.();
  assert.equal(h.calls.length, before);
  // the controller is reachable and refuses: no shortcut, the backoff grows as usual
  reachable = true;
  h.clock.advance(2000);
  h.last().fail("registration refused");
  assert.equal(h.clock.nextDelay(), 4000);
  assert.equal(h.stream.state(), "waiting");
  h.stream.stop();
  assert.ok(unwatched >= 1, "a wait ended by its timer or stop() stops its watch");
});
