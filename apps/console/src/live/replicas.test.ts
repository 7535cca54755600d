/**
 * Two console replicas over the real Redis (127.0.0.1:6379; SVC_TEST_REDIS_URL), each with a key prefix of its
 * own test: a publication on one reaches sockets on both, once; controller events each replica ingests reach each
 * socket once; a resume cursor replays on the replica that issued it and is a gap on the other; a store
 * unreachable at start leaves each replica on its in-process bus, with the spec's warning; the socket caps hold per
 * replica (1013 and svc_console_ws_refused_total on the replica that refused), the other still accepts.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { after, test } from "node:test";
import type { FeedEvent } from "@svc/contract";
import type { Redis } from "ioredis";
import type { ConsoleServer } from "../server.ts";
import { connectShared, SHARED_STORE_FALLBACK } from "../shared/redis.ts";
import { startConsole } from "../testing/harness.ts";
import { type LiveTestClient, mustOpen } from "../testing/ws-client.ts";

const REDIS = process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const quiet = { info() {}, warn() {} };
// decided before tests are declared, so a missing Redis can skip them (never with CI=true)
const probe: Redis | undefined = await connectShared(REDIS, 2000, quiet);
probe?.disconnect();
const skip = (): string | false =>
  probe || process.env.CI === "true" ? false : `Redis at ${REDIS} unreachable`;

const connections: Redis[] = [];
const sockets: LiveTestClient[] = [];
after(() => {
  for (const s of sockets) s.ws.terminate();
  for (const r of connections) r.disconnect();
});

const yaml = `replicas: 2\nredis: { url: "${REDIS}" }\n`;

/** Two replicas sharing a fresh prefix. */
async function twoReplicas(extra = ""): Promise<[ConsoleServer, ConsoleServer]> {
  const prefix = `svc:test:live:${randomBytes(6).toString("hex")}:`;
  const start = async () => {
    const redis = await connectShared(REDIS, 2000, quiet);
    assert.ok(redis, "Redis reachable");
    connections.push(redis);
    return startConsole(yaml + extra, { server: { webRoot: false, redis, redisPrefix: prefix } });
  };
  return [await start(), await start()];
}

const ev = (id: string): FeedEvent => ({
  id,
  at: "2026-01-01T00:00:00.000Z",
  type: "CheckObserved",
  severity: "info",
  scope: "a->b",
  summary: `CheckObserved ${id}`,
  payload: {},
});

async function subscribed(server: ConsoleServer, topic: string, cursor = {}): Promise<LiveTestClient> {
  const s = await mustOpen(server.httpUrl);
  sockets.push(s);
  await s.next("status");
  const m = await s.subscribe(topic, cursor);
  assert.equal(m.type, "subscribed", JSON.stringify(m));
  return s;
}

const ids = (msgs: { type: string; data?: unknown }[]) =>
  msgs.map((m) => (m.type === "event" ? (m.data as { id: string }).id : m.type));

test("a publication on one replica reaches sockets on both, once each", { skip: skip() }, async () => {
  const [a, b] = await twoReplicas();
  try {
    assert.equal(a.live.busKind, "redis");
    assert.notEqual(a.live.replicaId, b.live.replicaId);
    const onA = await subscribed(a, "live");
    const onB = await subscribed(b, "live");
    const runA = await subscribed(a, "run:r1");
    const runB = await subscribed(b, "run:r1");
    a.live.publish("live", ev("note-1"));
    b.live.publish("live", ev("note-2"));
    a.live.publish("run:r1", { id: "p1" });
    // each replica delivers its own at once and the other's through Redis: order across replicas is not fixed
    for (const s of [onA, onB]) assert.deepEqual(ids(await s.take(2)).sort(), ["note-1", "note-2"]);
    for (const s of [runA, runB]) assert.deepEqual(ids(await s.take(1)), ["p1"]);
    // controller events: each replica ingests the stream itself, so each socket sees each event once
    a.live.event(ev("c1"));
    b.live.event(ev("c1"));
    a.live.publish("live", ev("marker"));
    for (const s of [onA, onB]) assert.deepEqual(ids(await s.take(2)), ["c1", "marker"]);
    assert.equal(onA.got.length + onB.got.length, 0, "nothing delivered twice");
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("a resume cursor replays on the issuing replica and is a gap on the other", {
  skip: skip(),
}, async () => {
  const [a, b] = await twoReplicas();
  try {
    const first = await mustOpen(a.httpUrl);
    sockets.push(first);
    const sub = await first.subscribe("live");
    assert.ok(sub.type === "subscribed");
    for (const id of ["e1", "e2", "e3"]) a.live.publish("live", ev(id));
    const seen = await first.take(3, (m) => m.type === "event");
    const second = seen[1];
    assert.ok(second?.type === "event");
    first.ws.terminate();
    const cursor = { since: second.seq, replica: sub.replica };

    const again = await subscribed(a, "live", cursor);
    assert.deepEqual(ids(await again.take(1, (m) => m.type === "event")), ["e3"]);
    const other = await subscribed(b, "live", cursor);
    const [gap] = await other.take(1, (m) => m.type === "gap");
    assert.equal(gap?.type === "gap" && gap.reason, "other-replica");
    assert.equal(other.got.filter((m) => m.type === "event").length, 0, "the other replica replays nothing");
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("caps are per replica: the full one closes with 1013 and counts it, the other accepts and is fed", {
  skip: skip(),
}, async () => {
  const [a, b] = await twoReplicas("websocket: { maxConnections: 2 }\n");
  const refusedTotal = async (server: ConsoleServer) => {
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    return Number(/svc_console_ws_refused_total\{limit="total"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  try {
    const onA = [await subscribed(a, "live"), await subscribed(a, "live")];
    const third = await mustOpen(a.httpUrl);
    sockets.push(third);
    assert.equal((await third.whenClosed()).code, 1013);
    assert.equal(await refusedTotal(a), 1);
    // the other replica's sockets are its own: two more there, fed with what replica a publishes
    const onB = [await subscribed(b, "live"), await subscribed(b, "live")];
    assert.equal(await refusedTotal(b), 0);
    a.live.publish("live", ev("after-refusal"));
    for (const s of [...onA, ...onB]) assert.deepEqual(ids(await s.take(1)), ["after-refusal"]);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("a store unreachable at start: in-process bus per replica, with the warning", async () => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  await new Promise((r) => srv.close(r));
  const warned: string[] = [];
  const redis = await connectShared(`redis://127.0.0.1:${port}`, 500, {
    info() {},
    warn: (_o: object, msg = "") => warned.push(msg),
  });
  assert.equal(redis, undefined);
  assert.deepEqual(warned, [SHARED_STORE_FALLBACK]);
  const a = await startConsole(yaml, { server: { webRoot: false, redis } });
  const b = await startConsole(yaml, { server: { webRoot: false, redis } });
  try {
    assert.equal(a.live.busKind, "in-process");
    const onA = await subscribed(a, "live");
    const onB = await subscribed(b, "live");
    a.live.publish("live", ev("local-only"));
    b.live.publish("live", ev("b-only"));
    assert.deepEqual(ids(await onA.take(1)), ["local-only"]);
    assert.deepEqual(ids(await onB.take(1)), ["b-only"]);
    assert.equal(onA.got.length + onB.got.length, 0);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
