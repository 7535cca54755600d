/**
 * GET /ws over real sockets (port 0, the `ws` client): authentication as the API (session cookie, bearer token,
 * header mode), the origin check, per-topic authorization (`events:read` alone: live only), bad messages (error
 * invalid_message and nothing changes; 1009 over 4096 bytes; too_many_topics), the caps (1013 and the counter per
 * limit), replay and gaps on one replica, status on connect and on change, a slow consumer.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FeedEvent, WS_MAX_TOPICS } from "@svc/contract";
import type { ConsoleServer } from "../server.ts";
import { startConsole } from "../testing/harness.ts";
import {
  ADMIN_PW,
  browser,
  createUser,
  type LocalEnv,
  type LocalEnvs,
  localEnvs,
  login,
  w,
} from "../testing/local-env.ts";
import { type LiveTestClient, mustOpen, openLive } from "../testing/ws-client.ts";
import { PING_EVERY_MS, SESSION_ENDED } from "./socket-server.ts";
import { ManualTicker } from "./ticker.ts";

let envs: LocalEnvs;
let local: LocalEnv;
let cookie: (user: string) => Promise<string>;
const sockets: LiveTestClient[] = [];
const track = (s: LiveTestClient) => {
  sockets.push(s);
  return s;
};

const ev = (id: string, type = "CheckObserved"): FeedEvent => ({
  id,
  at: "2026-01-01T00:00:00.000Z",
  type,
  severity: "info",
  scope: "a->b",
  summary: `${type} ${id}`,
  payload: { n: id },
});

before(async () => {
  envs = await localEnvs();
  local = await envs.env("local");
  // a custom role holding events:read alone, and users holding it and viewer
  assert.equal(
    (await w(local.admin, "PUT", "/api/v1/rbac/roles/events-only", { permissions: ["events:read"] })).status,
    200,
  );
  await createUser(local, "evonly", "events-only");
  await createUser(local, "viewer1", "viewer");
  cookie = async (user) => {
    const c = browser(local.server);
    assert.equal((await login(c, user, `${user}-password-long`)).status, 200);
    return [...c.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  };
});

after(async () => {
  for (const s of sockets) s.ws.terminate();
  await local.server.stop();
  await envs.close();
});

const adminCookie = () => [...local.admin.jar].map(([k, v]) => `${k}=${v}`).join("; ");

test("no caller: 401 before the upgrade; a plain GET /ws is 400; another upgrade path 404", async () => {
  const r = await openLive(local.server.httpUrl);
  assert.ok("status" in r);
  assert.equal(r.status, 401);
  assert.equal((JSON.parse(r.body) as { error: { code: string } }).error.code, "unauthenticated");
  const plain = await fetch(`${local.server.httpUrl}/ws`);
  assert.equal(plain.status, 400);
  const other = await openLive(local.server.httpUrl, { cookie: adminCookie() }, "/api/v1/ws");
  assert.ok("status" in other);
  assert.equal(other.status, 404);
});

test("origin check: another host 403 before the upgrade, the same host or no Origin open", async () => {
  const host = new URL(local.server.httpUrl).host;
  for (const origin of ["http://evil.example", "null", `http://${host}.evil.example`]) {
    const r = await openLive(local.server.httpUrl, { cookie: adminCookie(), origin });
    assert.ok("status" in r, origin);
    assert.equal(r.status, 403, origin);
  }
  const same = track(
    await mustOpen(local.server.httpUrl, { cookie: adminCookie(), origin: `http://${host}` }),
  );
  assert.deepEqual(await same.next("status"), { type: "status", fed: false, since: null });
  const none = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  assert.equal((await none.next("status")).type, "status");
  same.close();
  none.close();
});

test("per topic: events:read alone gets live only; a viewer and the admin get every topic", async () => {
  const ev1 = track(await mustOpen(local.server.httpUrl, { cookie: await cookie("evonly") }));
  assert.equal((await ev1.subscribe("live")).type, "subscribed");
  for (const topic of ["topology", "matrix", "run:r1"]) {
    const m = await ev1.subscribe(topic);
    assert.equal(m.type, "error", topic);
    assert.equal(m.type === "error" && m.code, "forbidden", topic);
  }
  for (const who of ["viewer1", "admin"]) {
    const c = who === "admin" ? adminCookie() : await cookie(who);
    const s = track(await mustOpen(local.server.httpUrl, { cookie: c }));
    for (const topic of ["live", "topology", "matrix", "run:r1"])
      assert.equal((await s.subscribe(topic)).type, "subscribed", `${who} ${topic}`);
    s.close();
  }
  // only the permitted topic delivers
  local.server.live.event(ev("x1", "TopologyChanged"));
  const [got] = await ev1.take(1, (m) => m.type === "event");
  assert.equal(got?.type === "event" && got.topic, "live");
  ev1.close();
});

test("a bearer token authenticates the socket (holding auth.defaultRole: none here, so no topic)", async () => {
  const minted = await w(local.admin, "POST", "/api/v1/tokens", { name: "ws" });
  assert.equal(minted.status, 201);
  const token = (minted.body as { token: string }).token;
  const s = track(await mustOpen(local.server.httpUrl, { authorization: `Bearer ${token}` }));
  const m = await s.subscribe("live");
  assert.equal(m.type === "error" && m.code, "forbidden");
  s.close();
  const bad = await openLive(local.server.httpUrl, { authorization: "Bearer svct_nope" });
  assert.ok("status" in bad);
  assert.equal(bad.status, 401);
});

test("bad messages get invalid_message and change nothing; 65 topics too_many; > 4096 bytes closes 1009", async () => {
  const s = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  await s.next("status");
  const bad: (string | Buffer)[] = [
    "not json",
    JSON.stringify({ type: "subscribe", topic: "everything" }),
    JSON.stringify({ type: "subscribe", topic: "live", extra: 1 }),
    JSON.stringify({ type: "subscribe", topic: "live", since: -1 }),
    JSON.stringify({ type: "subscribe", topic: "live", since: 1.5 }),
    JSON.stringify({ type: "shout", topic: "live" }),
    '{"type":"subscribe","topic":"live","__proto__":{"since":1}}',
    JSON.stringify([]),
    Buffer.from(JSON.stringify({ type: "subscribe", topic: "live" })),
  ];
  for (const b of bad) s.sendRaw(b);
  const errors = await s.take(bad.length);
  for (const e of errors) assert.equal(e.type === "error" && e.code, "invalid_message", JSON.stringify(e));
  local.server.live.event(ev("after-bad"));
  // nothing subscribed: the next message is the answer to a good subscription
  assert.equal((await s.subscribe("live")).type, "subscribed");
  assert.equal(s.got.length, 0);

  for (let i = 1; i < WS_MAX_TOPICS; i++) s.send({ type: "subscribe", topic: `run:t${i}` });
  const subs = await s.take(WS_MAX_TOPICS - 1);
  assert.ok(subs.every((m) => m.type === "subscribed"));
  const over = await s.subscribe("run:one-too-many");
  assert.equal(over.type === "error" && over.code, "too_many_topics");
  // resubscribing a held topic is no new topic
  assert.equal((await s.subscribe("run:t1")).type, "subscribed");
  s.send({ type: "unsubscribe", topic: "run:t1" });
  assert.equal((await s.subscribe("run:one-more")).type, "subscribed");

  s.sendRaw("x".repeat(4097));
  assert.equal((await s.whenClosed()).code, 1009);
});

test("replay on the issuing replica, a gap for another replica's cursor or beyond the ring", async () => {
  const hub = local.server.live;
  const a = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  const sub = await a.subscribe("live");
  assert.equal(sub.type, "subscribed");
  const start = sub.type === "subscribed" ? sub.seq : 0;
  assert.equal(sub.type === "subscribed" && sub.replica, hub.replicaId);
  for (let i = 1; i <= 5; i++) hub.event(ev(`r${i}`));
  const live = await a.take(5, (m) => m.type === "event");
  assert.deepEqual(
    live.map((m) => m.type === "event" && m.seq),
    [1, 2, 3, 4, 5].map((n) => start + n),
  );
  a.ws.terminate();

  const b = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  await b.subscribe("live", { since: start + 2, replica: hub.replicaId });
  const replay = await b.take(3, (m) => m.type === "event");
  assert.deepEqual(
    replay.map((m) => m.type === "event" && (m.data as FeedEvent).id),
    ["r3", "r4", "r5"],
  );
  await b.subscribe("live", { since: start + 2, replica: "another" });
  const [gap] = await b.take(1, (m) => m.type === "gap");
  assert.deepEqual(gap, {
    type: "gap",
    topic: "live",
    from: start + 3,
    to: start + 5,
    reason: "other-replica",
  });
  hub.missed(2);
  const [up] = await b.take(1, (m) => m.type === "gap");
  assert.deepEqual(up, { type: "gap", topic: "live", from: start + 6, to: start + 7, reason: "upstream" });
  b.close();
});

test("status on connect and on every change of the controller stream", async () => {
  const s = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  await s.next("status");
  local.server.live.fed(true, Date.UTC(2026, 0, 2));
  assert.deepEqual(await s.next("status"), { type: "status", fed: true, since: "2026-01-02T00:00:00.000Z" });
  const t = track(await mustOpen(local.server.httpUrl, { cookie: adminCookie() }));
  assert.equal((await t.next("status")).fed, true);
  local.server.live.fed(false, Date.UTC(2026, 0, 3));
  assert.equal((await s.next("status")).fed, false);
  assert.equal((await t.next("status")).fed, false);
  s.close();
  t.close();
});

test("caps: total, per address (X-Forwarded-For through a trusted proxy), per subject; 1013 and the counter", async () => {
  const yaml = `
auth:
  mode: header
  header: { trustedProxyCIDRs: [127.0.0.1/32] }
  groupRoles: { ops: viewer }
clientAddress: { trustedProxyCIDRs: [127.0.0.1/32] }
websocket: { maxConnections: 4, maxConnectionsPerAddress: 2, maxConnectionsPerSubject: 1 }
`;
  const server: ConsoleServer = await startConsole(yaml, { server: { webRoot: false } });
  try {
    const as = (user: string, addr: string) => ({
      "x-remote-user": user,
      "x-remote-groups": "ops",
      "x-forwarded-for": addr,
    });
    const open = async (user: string, addr: string) => track(await mustOpen(server.httpUrl, as(user, addr)));
    const accepted = async (s: LiveTestClient) =>
      s.next("status").then(
        () => true,
        () => false,
      );
    const refusedBy = async (user: string, addr: string) => {
      const s = await open(user, addr);
      assert.equal(await accepted(s), false);
      return (await s.whenClosed()).code;
    };
    const a1 = await open("alice", "10.0.0.1");
    assert.equal((await a1.subscribe("live")).type, "subscribed");
    assert.equal(await refusedBy("alice", "10.0.0.2"), 1013); // subject
    await open("bob", "10.0.0.1");
    assert.equal(await refusedBy("carol", "10.0.0.1"), 1013); // address
    await open("carol", "10.0.0.2");
    await open("dave", "10.0.0.3");
    assert.equal(await refusedBy("erin", "10.0.0.4"), 1013); // total
    const metrics = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    for (const limit of ["total", "address", "subject"])
      assert.match(metrics, new RegExp(`svc_console_ws_refused_total\\{limit="${limit}"\\} 1\\b`), limit);
    // a closed socket frees its places
    a1.close();
    await a1.whenClosed();
    let reopened = false;
    for (let i = 0; i < 50 && !reopened; i++) reopened = await accepted(await open("alice", "10.0.0.1"));
    assert.ok(reopened);
  } finally {
    await server.stop();
  }
});

test("0 disables a cap; negative caps fail startup with the key named", async () => {
  const { parseConsoleConfig } = await import("../config/load.ts");
  const { config } = parseConsoleConfig(
    "websocket: { maxConnections: 0, maxConnectionsPerAddress: 0, maxConnectionsPerSubject: 0 }\n",
    {},
  );
  assert.deepEqual(config.websocket, {
    maxConnections: 0,
    maxConnectionsPerAddress: 0,
    maxConnectionsPerSubject: 0,
  });
  for (const key of ["maxConnections", "maxConnectionsPerAddress", "maxConnectionsPerSubject"])
    assert.throws(
      () => parseConsoleConfig(`websocket: { ${key}: -1 }\n`, {}),
      (e: unknown) => String((e as { issues?: string[] }).issues).includes(`websocket.${key}`),
    );
  const server = await startConsole(
    "websocket: { maxConnections: 0, maxConnectionsPerAddress: 0, maxConnectionsPerSubject: 0 }\n",
    { server: { webRoot: false } },
  );
  try {
    const many = await Promise.all(Array.from({ length: 40 }, () => mustOpen(server.httpUrl)));
    for (const s of many) track(s);
    await Promise.all(many.map((s) => s.next("status")));
    assert.ok(many.every((s) => !s.closed));
  } finally {
    await server.stop();
  }
});

test("a slow consumer is skipped, not buffered, and told a slow-consumer gap when it drained", async () => {
  const server = await startConsole("", { server: { webRoot: false, live: { slowBytes: 64 * 1024 } } });
  try {
    const s = track(await mustOpen(server.httpUrl));
    await s.next("status");
    await s.subscribe("live");
    const raw = (s.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    const big = "y".repeat(16 * 1024);
    // enough to fill the kernel's socket buffers and then the bound
    for (let i = 0; i < 2000; i++) server.live.event({ ...ev(`s${i}`), summary: big });
    raw.resume();
    const deadline = Date.now() + 10_000;
    let gap: unknown;
    while (gap === undefined && Date.now() < deadline) {
      server.live.sweep();
      gap = s.got.find((m) => m.type === "gap");
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(gap, "a slow-consumer gap arrived");
    assert.equal((gap as { reason: string }).reason, "slow-consumer");
    const events = s.got.filter((m) => m.type === "event").length;
    assert.ok(events < 2000, `skipped some: got ${events}`);
  } finally {
    await server.stop();
  }
});

test("a socket whose session ended (logout) is closed with 4001 at the next ping; one still signed in stays", async () => {
  const ticker = new ManualTicker();
  const own = await envs.env("local", "", { live: { every: ticker.every } });
  try {
    const cookieOf = (c: ReturnType<typeof browser>) => [...c.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const leaving = browser(own.server);
    assert.equal((await login(leaving, "admin", ADMIN_PW)).status, 200);
    const gone = await mustOpen(own.server.httpUrl, { cookie: cookieOf(leaving) });
    const staying = await mustOpen(own.server.httpUrl, { cookie: cookieOf(own.admin) });
    const closed = new Promise<number>((resolve) => gone.ws.once("close", (code) => resolve(code)));
    assert.equal((await w(leaving, "POST", "/api/v1/auth/logout")).status, 204);
    ticker.tick(PING_EVERY_MS);
    assert.equal(await closed, SESSION_ENDED);
    ticker.tick(PING_EVERY_MS);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(staying.ws.readyState, staying.ws.OPEN, "the other session's socket stays");
    staying.ws.terminate();
  } finally {
    await own.server.stop();
  }
});
