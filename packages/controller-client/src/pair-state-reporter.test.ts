/**
 * PairStateReporter in virtual time (ManualClock): what it sends and when, against a scripted controller (the
 * send function is the wire; the real controller's answers are in apps/controller's pair-state tests).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { grpc, type ReportPairStateRequest, type ReportPairStateResponse } from "@svc/protocol";
import { ManualClock } from "./manual-clock.ts";
import {
  PAIR_STATE_FLUSH_MS,
  PAIR_STATE_KEEPALIVE_MS,
  PAIR_STATE_UNIMPLEMENTED_RETRY_MS,
  PairStateReporter,
} from "./pair-state-reporter.ts";

/** A scripted controller: records each report, answers with the next scripted answer (default: taken). */
function harness(registered = true) {
  const clock = new ManualClock(1000);
  const sent: ReportPairStateRequest[] = [];
  const answers: (ReportPairStateResponse | grpc.ServiceError)[] = [];
  let id: string | undefined = registered ? "agent-a" : undefined;
  const reporter = new PairStateReporter({
    agentId: () => id,
    clock,
    random: () => 0,
    send: async (req) => {
      sent.push(structuredClone(req));
      const a = answers.shift() ?? { need_full: false };
      if ("code" in a) throw a;
      return a;
    },
  });
  const settle = () => new Promise((r) => setImmediate(r));
  const advance = async (ms: number) => {
    // step so that reports scheduled by a settled send fall due within the same advance
    for (let left = ms; left > 0; left -= Math.min(left, 50)) {
      clock.advance(Math.min(left, 50));
      await settle();
    }
  };
  return { clock, sent, answers, reporter, advance, register: () => (id = "agent-a") };
}

const failure = (code: grpc.status): grpc.ServiceError =>
  Object.assign(new Error(`${code}`), { code, details: "", metadata: new grpc.Metadata() });

const short = (r: ReportPairStateRequest) => ({
  seq: r.seq,
  full: r.full,
  problems: r.problems.map((p) => `${p.plane} ${p.destination_node} ${p.ratio}`).sort(),
  cleared: r.cleared.map((p) => `${p.plane} ${p.destination_node}`).sort(),
});

test("waits for the registration, then sends the whole set; changes go as deltas one flush later", async () => {
  const h = harness(false);
  h.reporter.set("tcp", "b", 1);
  h.reporter.start();
  await h.advance(2000);
  assert.equal(h.sent.length, 0, "nothing before the agent is registered");
  h.register();
  await h.advance(300);
  assert.deepEqual(h.sent.map(short), [{ seq: 1, full: true, problems: ["tcp b 1"], cleared: [] }]);
  h.reporter.set("udp", "c", 0.4);
  h.reporter.set("tcp", "b", undefined);
  h.reporter.set("tcp", "b", undefined); // unchanged: no second change
  await h.advance(PAIR_STATE_FLUSH_MS - 50);
  assert.equal(h.sent.length, 1, "changes wait for the flush");
  await h.advance(100);
  assert.deepEqual(h.sent.slice(1).map(short), [
    { seq: 2, full: false, problems: ["udp c 0.4"], cleared: ["tcp b"] },
  ]);
  h.reporter.stop();
});

test("an empty report every keepalive while nothing changes; none before it", async () => {
  const h = harness();
  h.reporter.start();
  await h.advance(100);
  assert.equal(h.sent.length, 1);
  await h.advance(PAIR_STATE_KEEPALIVE_MS - 200);
  assert.equal(h.sent.length, 1);
  await h.advance(300);
  assert.deepEqual(h.sent.slice(1).map(short), [{ seq: 2, full: false, problems: [], cleared: [] }]);
  h.reporter.stop();
});

test("need_full: the whole set at once; a failure: the whole set after the backoff", async () => {
  const h = harness();
  h.reporter.set("icmp", "d", 1);
  h.reporter.start();
  await h.advance(100);
  h.answers.push({ need_full: true });
  h.reporter.set("tcp", "b", 0.5);
  await h.advance(200);
  assert.deepEqual(h.sent.slice(1).map(short), [
    { seq: 2, full: false, problems: ["tcp b 0.5"], cleared: [] },
    { seq: 2, full: true, problems: ["icmp d 1", "tcp b 0.5"], cleared: [] },
  ]);
  h.answers.push(failure(grpc.status.UNAVAILABLE));
  h.reporter.set("icmp", "d", undefined);
  await h.advance(200);
  assert.equal(h.sent.length, 4);
  await h.advance(800); // the failed report went 100 ms after the change
  assert.equal(h.sent.length, 4, "the first retry waits 1 s");
  await h.advance(200);
  assert.deepEqual(short(h.sent[4] as ReportPairStateRequest), {
    seq: 3,
    full: true,
    problems: ["tcp b 0.5"],
    cleared: [],
  });
  h.reporter.stop();
});

test("a controller without the service (UNIMPLEMENTED) is asked again after 5 minutes, not before", async () => {
  const h = harness();
  h.answers.push(failure(grpc.status.UNIMPLEMENTED));
  h.reporter.set("tcp", "b", 1);
  h.reporter.start();
  await h.advance(100);
  assert.equal(h.sent.length, 1);
  h.reporter.set("tcp", "c", 1);
  await h.advance(PAIR_STATE_UNIMPLEMENTED_RETRY_MS - 1000);
  assert.equal(h.sent.length, 1, "no report while the controller said it has no such service");
  await h.advance(2000);
  assert.deepEqual(short(h.sent[1] as ReportPairStateRequest), {
    seq: 1,
    full: true,
    problems: ["tcp b 1", "tcp c 1"],
    cleared: [],
  });
  h.reporter.stop();
});

test("forgetting a destination or a plane clears its pairs in the next report", async () => {
  const h = harness();
  h.reporter.set("tcp", "b", 1);
  h.reporter.set("udp", "b", 1);
  h.reporter.set("udp", "c", 1);
  h.reporter.start();
  await h.advance(100);
  h.reporter.forgetDestination("b");
  await h.advance(200);
  h.reporter.forgetPlane("udp");
  await h.advance(200);
  assert.deepEqual(h.sent.slice(1).map(short), [
    { seq: 2, full: false, problems: [], cleared: ["tcp b", "udp b"] },
    { seq: 3, full: false, problems: [], cleared: ["udp c"] },
  ]);
  h.reporter.stop();
});
