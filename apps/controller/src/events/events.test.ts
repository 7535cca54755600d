import assert from "node:assert/strict";
import { test } from "node:test";
import { grpc } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { EventWatch, payloadOf } from "./testdata/event-watch.ts";

const version = { version: "2.5.0", commit: "t" };
const hosts = { grpcHost: "127.0.0.1", httpHost: "127.0.0.1" };

async function withController(
  opts: { eventsEnabled?: boolean; isLeader?: () => boolean },
  body: (c: Controller) => Promise<void>,
): Promise<void> {
  const c = new Controller({
    config: testConfig({ eventsEnabled: opts.eventsEnabled ?? true }),
    version,
    ...hosts,
    isLeader: opts.isLeader,
  });
  await c.start();
  try {
    await body(c);
  } finally {
    await c.stop();
  }
}

function check(i: number) {
  return { type: "CheckObserved" as const, severity: "info" as const, scope: "a->b", payload: { i } };
}

test("a standby refuses Subscribe with UNAVAILABLE `not the leader`; disabled events: UNIMPLEMENTED", async () => {
  await withController({ isLeader: () => false }, async (c) => {
    const w = new EventWatch(c.grpcPort);
    await assert.rejects(w.opened(), (err: grpc.ServiceError) => {
      assert.equal(err.code, grpc.status.UNAVAILABLE);
      assert.equal(err.details, "not the leader");
      return true;
    });
    w.close();
  });
  await withController({ eventsEnabled: false }, async (c) => {
    const w = new EventWatch(c.grpcPort);
    await assert.rejects(w.opened(), (err: grpc.ServiceError) => err.code === grpc.status.UNIMPLEMENTED);
    w.close();
    const body = (await (await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/version`)).json()) as {
      capabilities: string[];
    };
    assert.deepEqual(body.capabilities, []);
  });
});

test("TopologyChanged carries the agent's labels; sequence numbers count per topic", async () => {
  await withController({}, async (c) => {
    const w = new EventWatch(c.grpcPort);
    await w.opened();
    const metrics = async () => await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text();
    assert.match(await metrics(), /^svc_controller_event_subscribers 1$/m);
    const raw = new RawAgentClient(c.grpcPort);
    const labels = { team: "net", "svc.io/host-network": "true" };
    const reg = await raw.register(
      registerRequest({ node_name: "n1", advertise_address: "198.18.0.21", zone: "z1", labels }),
    );
    const joined = await w.waitFor((e) => payloadOf(e).change === "agent-joined", "agent-joined");
    assert.equal(joined.type, "TopologyChanged");
    assert.equal(joined.topic, "topology");
    assert.equal(joined.scope, "n1");
    assert.deepEqual(payloadOf(joined).labels, labels);
    assert.deepEqual((payloadOf(joined).agent as { labels: unknown }).labels, labels);
    await w.waitFor((e) => payloadOf(e).change === "node-joined", "node-joined");
    await raw.deregister(reg.agent_id);
    const left = await w.waitFor((e) => payloadOf(e).change === "agent-left", "agent-left");
    assert.equal(payloadOf(left).reason, "deregistered");
    assert.deepEqual(payloadOf(left).labels, labels);
    const nodeLeft = await w.waitFor((e) => payloadOf(e).change === "node-left", "node-left");
    assert.deepEqual(payloadOf(nodeLeft).labels, labels);
    raw.close();

    for (let i = 0; i < 3; i++) c.events.publish(check(i));
    await waitUntil(() => w.of("checks").length === 3, "three checks");
    assert.deepEqual(
      w.of("topology").map((e) => e.seq),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      w.of("checks").map((e) => e.seq),
      [1, 2, 3],
    );
    assert.ok(w.events.every((e) => e.missed === 0 && e.timestamp_unix_ns > 0));
    w.close();
    await waitUntil(
      async () => /^svc_controller_event_subscribers 0$/m.test(await metrics()),
      "gauge back to 0",
    );
  });
});

test("a subscriber resuming with `after` gets the later events; one fallen out of the ring is told how many", async () => {
  await withController({}, async (c) => {
    const first = new EventWatch(c.grpcPort);
    await first.opened();
    for (let i = 0; i < 5; i++) c.events.publish(check(i));
    await waitUntil(() => first.of("checks").length === 5, "five checks");
    first.close();
    for (let i = 5; i < 8; i++) c.events.publish(check(i));

    const resumed = new EventWatch(c.grpcPort, { checks: 5 });
    await waitUntil(() => resumed.of("checks").length === 3, "replayed checks");
    assert.deepEqual(
      resumed.of("checks").map((e) => [e.seq, e.missed, payloadOf(e).i]),
      [
        [6, 0, 5],
        [7, 0, 6],
        [8, 0, 7],
      ],
    );
    c.events.publish(check(8));
    await waitUntil(() => resumed.of("checks").length === 4, "live after replay");
    resumed.close();

    // The ring keeps the newest 1024 events per topic: resuming from seq 5 after 2000 events loses some.
    for (let i = 9; i < 2000; i++) c.events.publish(check(i));
    const late = new EventWatch(c.grpcPort, { checks: 5 });
    await waitUntil(() => late.of("checks").length === 1024, "ring replay");
    const firstReplayed = late.of("checks")[0];
    assert.equal(firstReplayed?.seq, 2000 - 1024 + 1);
    assert.equal(firstReplayed?.missed, 2000 - 1024 - 5);
    assert.ok(
      late
        .of("checks")
        .slice(1)
        .every((e) => e.missed === 0),
    );
    late.close();
  });
});

test("a slow subscriber is told what it missed and does not hold back others", async () => {
  await withController({}, async (c) => {
    const slow = new EventWatch(c.grpcPort);
    const fast = new EventWatch(c.grpcPort);
    await slow.opened();
    await fast.opened();
    slow.call.pause();
    // Batches smaller than a subscriber's queue bound: one that keeps reading loses nothing.
    const total = 20_000;
    for (let i = 0; i < total; i++) {
      c.events.publish(check(i));
      if ((i + 1) % 500 === 0)
        await waitUntil(() => fast.of("checks").length === i + 1, "fast subscriber kept up");
    }
    assert.ok(fast.of("checks").every((e, i) => e.seq === i + 1 && e.missed === 0));
    slow.call.resume();
    await waitUntil(() => slow.of("checks").at(-1)?.seq === total, "slow subscriber reached the end", 10_000);
    const got = slow.of("checks");
    let prev = 0;
    for (const e of got) {
      assert.equal(e.seq, prev + e.missed + 1, `seq ${e.seq} after ${prev} with missed ${e.missed}`);
      prev = e.seq;
    }
    assert.ok(got.length < total, "the slow subscriber lost events");
    assert.ok(got.some((e) => e.missed > 0));
    slow.close();
    fast.close();
  });
});
