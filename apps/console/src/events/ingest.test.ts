/**
 * Event ingestion against a real controller in-process (events enabled), on PGlite and on PostgreSQL: agents
 * registering and leaving become stored TopologyChanged rows listed by GET /api/v1/events; a stream cut by a proxy
 * resumes with `after` (the ring's replay is stored, nothing twice); a restarted controller is followed; a standby
 * answering `not the leader` is left for the leader; baselines on connect and hourly (virtual time) rebuild past
 * topology (topologyAt, GET /api/v1/fleet/topology?at=); retention purges in virtual time.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FeedEvent, FleetTopology } from "@svc/contract";
import { Controller, RawAgentClient, registerRequest, testConfig, waitUntil } from "@svc/controller";
import { createEventServiceClient, type EventServiceClient, grpc } from "@svc/protocol";
import { TcpProxy } from "../../../../test/helpers/tcp-proxy.ts";
import type { ConsoleServer } from "../server.ts";
import type { Db } from "../store/db.ts";
import { type DbBackend, type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole, TestClock } from "../testing/harness.ts";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";

const version = { version: "2.5.0", commit: "t" };
const hosts = { grpcHost: "127.0.0.1", httpHost: "127.0.0.1" };

let dbs: EachDb;
before(async () => {
  dbs = await eachDb();
});
after(async () => {
  await dbs.close();
});

async function controller(opts: { grpcPort?: number; isLeader?: () => boolean } = {}): Promise<Controller> {
  const c = new Controller({
    config: testConfig({ eventsEnabled: true, grpcPort: opts.grpcPort }),
    version,
    ...hosts,
    isLeader: opts.isLeader,
  });
  await c.start();
  return c;
}

interface Env {
  server: ConsoleServer;
  db: Db;
  clock: TestClock;
  scheduler: VirtualScheduler;
}

async function consoleFor(
  backend: DbBackend,
  ctl: { httpPort: number },
  grpcPort: number,
  opts: { dial?: () => EventServiceClient; extra?: string } = {},
): Promise<Env> {
  const db = await backend.fresh();
  const clock = new TestClock(Date.now());
  const scheduler = new VirtualScheduler();
  const yaml = `controller:\n  url: http://127.0.0.1:${ctl.httpPort}\n  grpcAddress: 127.0.0.1:${grpcPort}\n${opts.extra ?? ""}`;
  const server = await startConsole(yaml, {
    db,
    clock,
    server: { events: { scheduler, ...(opts.dial ? { dial: opts.dial } : {}) } },
  });
  await server.whenReady();
  return { server, db, clock, scheduler };
}

async function events(server: ConsoleServer, query = ""): Promise<FeedEvent[]> {
  const res = await fetch(`${server.httpUrl}/api/v1/events?limit=200${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { events: FeedEvent[] }).events;
}

const change = (e: FeedEvent) => String(e.payload.change);
const connected = (s: ConsoleServer) => s.history.ingester?.status().connected === true;

for (const backend of [{ kind: "pglite" }, { kind: "postgres" }] as const) {
  test(`${backend.kind}: an agent registering and leaving is stored and listed as TopologyChanged`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === backend.kind);
    if (!b) return t.skip(String(dbs.skipped));
    const ctl = await controller();
    const env = await consoleFor(b, ctl, ctl.grpcPort);
    const raw = new RawAgentClient(ctl.grpcPort);
    try {
      await waitUntil(() => connected(env.server), "event stream connected");
      const reg = await raw.register(
        registerRequest({ node_name: "node-3", advertise_address: "198.18.0.23", zone: "z1" }),
      );
      await raw.deregister(reg.agent_id);
      await waitUntil(
        async () => (await events(env.server)).some((e) => change(e) === "node-left"),
        "node-left stored",
      );
      const rows = await events(env.server);
      const left = rows.find((e) => change(e) === "agent-left");
      assert.ok(left, JSON.stringify(rows));
      assert.equal(left.type, "TopologyChanged");
      assert.equal(left.scope, "node-3");
      assert.equal(left.severity, "warn");
      assert.equal(left.summary, "Topology changed: agent-left node-3 (deregistered)");
      assert.deepEqual(
        rows.map(change),
        ["node-left", "agent-left", "node-joined", "agent-joined"],
        "newest first",
      );
      for (const r of rows) assert.match(r.summary, /^Topology changed: /);
      // the rows are in the database, not only in memory
      const [n] = await env.db.query("SELECT count(*) AS n FROM events WHERE type = 'TopologyChanged'");
      assert.equal(Number(n?.n), 4);
      // the baseline stored on connect is never listed
      const [bl] = await env.db.query("SELECT count(*) AS n FROM topology_baselines");
      assert.ok(Number(bl?.n) >= 1);
      assert.equal((await events(env.server)).length, 4);
    } finally {
      raw.close();
      await env.server.stop();
      await ctl.stop();
    }
  });
}

test("a stream cut and restored resumes with `after`: events published meanwhile are stored, none twice", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  const ctl = await controller();
  const proxy = await TcpProxy.start(ctl.grpcPort);
  const env = await consoleFor(b, ctl, proxy.port);
  const raw = new RawAgentClient(ctl.grpcPort);
  try {
    await waitUntil(() => connected(env.server), "connected");
    await raw.register(registerRequest({ node_name: "n1", advertise_address: "198.18.0.21", zone: "z1" }));
    await waitUntil(async () => (await events(env.server)).length === 2, "n1 joined stored");
    proxy.set("refuse");
    await waitUntil(() => !connected(env.server), "stream lost");
    await raw.register(registerRequest({ node_name: "n2", advertise_address: "198.18.0.22", zone: "z1" }));
    proxy.set("pass");
    await waitAdvancing(env.scheduler, () => connected(env.server), "reconnected");
    await waitUntil(async () => (await events(env.server)).length === 4, "n2 replayed and stored");
    const rows = await events(env.server);
    assert.deepEqual(
      rows.map((e) => `${change(e)} ${e.scope}`),
      ["node-joined n2", "agent-joined n2", "node-joined n1", "agent-joined n1"],
    );
    assert.deepEqual(env.server.history.ingester?.status().after, { topology: 4 });
  } finally {
    raw.close();
    await env.server.stop();
    await ctl.stop();
    await proxy.close();
  }
});

test("a restarted controller is followed: events of the new process are stored (its sequence starts over)", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  let ctl = await controller();
  const grpcPort = ctl.grpcPort;
  const env = await consoleFor(b, ctl, grpcPort);
  try {
    await waitUntil(() => connected(env.server), "connected");
    let raw = new RawAgentClient(grpcPort);
    await raw.register(registerRequest({ node_name: "n1", advertise_address: "198.18.0.21", zone: "z1" }));
    await waitUntil(async () => (await events(env.server)).length === 2, "first process' events");
    raw.close();
    await ctl.stop();
    await waitUntil(() => !connected(env.server), "stream lost");
    ctl = await controller({ grpcPort });
    await waitAdvancing(env.scheduler, () => connected(env.server), "reconnected to the new process");
    raw = new RawAgentClient(grpcPort);
    await raw.register(registerRequest({ node_name: "n9", advertise_address: "198.18.0.29", zone: "z1" }));
    raw.close();
    // its two events (node and agent joined) are stored one by one: wait for both, then check there are no more
    await waitUntil(
      async () => (await events(env.server, "&scope=n9")).length >= 2,
      "the new process' events stored",
    );
    assert.equal((await events(env.server, "&scope=n9")).length, 2);
  } finally {
    await env.server.stop();
    await ctl.stop();
  }
});

test("a standby's `not the leader` is left for the leader (re-dialled, as agents follow it)", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  const standby = await controller({ isLeader: () => false });
  const leader = await controller();
  // the address leads to the standby first, then (a new connection) to the leader, as a Service may
  const targets = [standby.grpcPort, leader.grpcPort];
  let dials = 0;
  const dial = (): EventServiceClient => {
    const port = targets[Math.min(dials++, targets.length - 1)];
    return createEventServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  };
  const env = await consoleFor(b, leader, standby.grpcPort, { dial });
  const raw = new RawAgentClient(leader.grpcPort);
  try {
    await waitAdvancing(env.scheduler, () => connected(env.server), "connected to the leader");
    assert.equal(dials, 2);
    assert.equal(standby.events.subscribers, 0);
    assert.equal(leader.events.subscribers, 1);
    await raw.register(registerRequest({ node_name: "n5", advertise_address: "198.18.0.25", zone: "z1" }));
    await waitUntil(async () => (await events(env.server)).length === 2, "leader's events stored");
  } finally {
    raw.close();
    await env.server.stop();
    await standby.stop();
    await leader.stop();
  }
});

test("unfed for ten minutes, the replica is fed again within 15 s of the stream returning (spec §6.2)", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  let leading = false;
  // a controller that answers but refuses the stream (`not the leader`): each refusal is a failed attempt, so the
  // backoff grows to its longest wait before the stream returns
  const ctl = await controller({ isLeader: () => leading });
  const env = await consoleFor(b, ctl, ctl.grpcPort);
  const waiting = () => env.server.history.ingester?.streamState() === "waiting";
  try {
    const until = env.scheduler.now() + 600_000;
    while (env.scheduler.now() < until) {
      await waitUntil(waiting, "the refused attempt ended");
      env.scheduler.advance(1000);
    }
    assert.equal(connected(env.server), false);
    leading = true;
    const returned = env.scheduler.now();
    // virtual time moves only while the ingester waits on it, never during a real attempt
    while (!connected(env.server)) {
      await waitUntil(() => waiting() || connected(env.server), "the attempt ended");
      if (connected(env.server)) break;
      env.scheduler.advance(100);
    }
    const took = env.scheduler.now() - returned;
    assert.ok(took <= 15_000, `fed again ${took} ms after the stream returned`);
  } finally {
    await env.server.stop();
    await ctl.stop();
  }
});

test("baselines on connect and hourly rebuild past topology: a node that has left is there at the earlier instant", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  const ctl = await controller();
  const env = await consoleFor(b, ctl, ctl.grpcPort);
  const raw = new RawAgentClient(ctl.grpcPort);
  const baselines = () => env.server.history.ingester?.status().baselines ?? 0;
  try {
    await waitUntil(() => connected(env.server) && baselines() === 1, "connected, first baseline");
    await raw.register(registerRequest({ node_name: "n1", advertise_address: "198.18.0.21", zone: "z1" }));
    const r2 = await raw.register(
      registerRequest({ node_name: "n2", advertise_address: "198.18.0.22", zone: "z1" }),
    );
    await waitUntil(async () => (await events(env.server)).length === 4, "joins stored");
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 5)); // the instant lies strictly between the joins and what follows
    env.scheduler.advance(3_600_000); // an hour on: the second baseline (n1 and n2)
    await waitUntil(() => baselines() === 2, "hourly baseline");
    await raw.deregister(r2.agent_id);
    await waitUntil(
      async () => (await events(env.server)).some((e) => change(e) === "node-left"),
      "n2 left, stored",
    );
    const past = await env.server.history.topologyAt(before);
    assert.deepEqual(
      past?.nodes.map((n) => n.name),
      ["n1", "n2"],
    );
    assert.deepEqual(
      past?.agents.map((a) => a.nodeName),
      ["n1", "n2"],
    );
    const now = await env.server.history.topologyAt(Date.now());
    assert.deepEqual(
      now?.nodes.map((n) => n.name),
      ["n1"],
    );
    // before anything was stored nothing is known
    assert.equal(await env.server.history.topologyAt(Date.UTC(2000, 0, 1)), undefined);
    // the Time Machine route serves the rebuilt inventory
    const res = await fetch(
      `${env.server.httpUrl}/api/v1/fleet/topology?at=${encodeURIComponent(new Date(before).toISOString())}`,
    );
    assert.equal(res.status, 200);
    const body = (await res.json()) as FleetTopology;
    assert.deepEqual(
      body.nodes.map((n) => n.name),
      ["n1", "n2"],
    );
    // baselines are never listed as events
    assert.equal((await events(env.server)).length, 6);
  } finally {
    raw.close();
    await env.server.stop();
    await ctl.stop();
  }
});

test("retention: the periodic purge deletes history past database.retentionDays (virtual time); 0 keeps all", async () => {
  const b = dbs.backends[dbs.backends.length - 1] as DbBackend;
  for (const days of [90, 0]) {
    const ctl = await controller();
    const env = await consoleFor(b, ctl, ctl.grpcPort, { extra: `database:\n  retentionDays: ${days}\n` });
    const raw = new RawAgentClient(ctl.grpcPort);
    try {
      await waitUntil(() => connected(env.server), "connected");
      await raw.register(registerRequest({ node_name: "n1", advertise_address: "198.18.0.21", zone: "z1" }));
      await waitUntil(async () => (await events(env.server)).length === 2, "stored");
      env.clock.advance(89 * 86_400_000);
      assert.equal(await env.server.purgeHistory(), 0, "nothing is 90 days old yet");
      assert.equal((await events(env.server)).length, 2);
      env.clock.advance(2 * 86_400_000);
      await env.server.purgeHistory();
      assert.equal((await events(env.server)).length, days === 0 ? 2 : 0);
      const [bl] = await env.db.query("SELECT count(*) AS n FROM topology_baselines");
      assert.equal(Number(bl?.n), 1, "the newest baseline before the cutoff stays");
    } finally {
      raw.close();
      await env.server.stop();
      await ctl.stop();
    }
  }
});
