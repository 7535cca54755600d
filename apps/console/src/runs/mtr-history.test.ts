/**
 * MTR path history on PGlite and PostgreSQL: the traces of an mtr run (a real controller, an agent answering with
 * hops) become content-hashed paths per pair; a trace over the same path moves its last-seen stamp, a different
 * path starts a new row; GET /api/v1/mtr/snapshots lists the changes newest first and needs source and destination.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MtrSnapshot } from "@svc/contract";
import { Controller, testConfig } from "@svc/controller";
import { eventually } from "../../../../test/helpers/env.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import { silent } from "../log.ts";
import type { AuditActor } from "../store/audit-row.ts";
import { migrate } from "../store/migrations.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole } from "../testing/harness.ts";
import { VirtualScheduler } from "../testing/virtual-scheduler.ts";
import { MtrHistory, pathHash } from "./mtr-history.ts";
import { Runs } from "./runs.ts";
import { TaskAgent } from "./testdata/task-agent.ts";

let dbs: EachDb;
let controller: Controller;
const agents: TaskAgent[] = [];
let route = ["198.18.1.1", "", "198.18.0.42"];
before(async () => {
  dbs = await eachDb();
  controller = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  const hops = () => route.map((ip, i) => ({ number: i + 1, ip, rtt: 1_000_000 * (i + 1), lossRatio: 0 }));
  agents.push(
    await TaskAgent.start(controller, "m1", "198.18.0.41", () => ({
      details_json: JSON.stringify({ target: "198.18.0.42", hops: hops() }),
    })),
  );
  agents.push(await TaskAgent.start(controller, "m2", "198.18.0.42", () => ({})));
});
after(async () => {
  for (const a of agents) a.close();
  await controller.stop();
  await dbs.close();
});

const actor: AuditActor = {
  subject: "local:x",
  subjectDisplay: "x",
  action: "POST /api/v1/runs",
  remoteAddr: "",
};

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: an mtr run's traces become path history; a changed path is a new snapshot`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const db = await b.fresh();
    await migrate(db);
    const t0 = Date.UTC(2026, 2, 1);
    const scheduler = new VirtualScheduler(t0);
    const history = new MtrHistory(db);
    const client = new ControllerClient({ url: `http://127.0.0.1:${controller.httpPort}`, timeoutMs: 5000 });
    const runs = new Runs({
      db,
      scheduler,
      diagnostics: (body) => client.diagnostics(body),
      publish: () => {},
      log: silent,
      mtrCompleted: async (p, result, at) => {
        await history.record(p.source, p.destination, result, "run", at);
      },
    });
    runs.start();
    route = ["198.18.1.1", "", "198.18.0.42"];
    try {
      // 270 s at the 90 s mtr floor: three traces
      const run = await runs.create(
        {
          type: "mtr",
          pairs: [{ source: "m1", destination: "m2" }],
          sources: [],
          destinations: [],
          durationSeconds: 270,
        },
        actor,
      );
      assert.equal(run.plannedSamplesPerPair, 3);
      scheduler.advance(0);
      await runs.settled();
      scheduler.advance(90_000);
      await runs.settled();
      route = ["198.18.1.9", "198.18.0.42"];
      scheduler.advance(90_000);
      await runs.settled();
      assert.equal((await runs.get(run.id)).status, "completed");
      const snaps = await history.list("m1", "m2");
      assert.deepEqual(
        snaps.map((s) => [s.traces, s.firstAt, s.lastAt, s.hops.map((h) => h.ip)]),
        [
          [
            1,
            new Date(t0 + 180_000).toISOString(),
            new Date(t0 + 180_000).toISOString(),
            ["198.18.1.9", "198.18.0.42"],
          ],
          [
            2,
            new Date(t0).toISOString(),
            new Date(t0 + 90_000).toISOString(),
            ["198.18.1.1", "", "198.18.0.42"],
          ],
        ],
      );
      assert.equal(snaps[1]?.pathHash, pathHash(snaps[1]?.hops ?? []));
      assert.equal(snaps[1]?.origin, "run");
      assert.equal(snaps[1]?.hops[0]?.rttNs, 1_000_000);
      assert.deepEqual(await history.list("m2", "m1"), []);
      // a result without hops is not a path
      assert.equal(
        await history.record("m1", "m2", { success: false, details: {} }, "diagnostic", t0),
        false,
      );
    } finally {
      await runs.stop();
    }
  });
}

test("GET /api/v1/mtr/snapshots: source and destination required; 503 without a database", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const s = await startConsole("auth:\n  anonymous:\n    role: viewer\n", { db: await b.fresh() });
  await s.whenReady();
  const bare = await startConsole("auth:\n  anonymous:\n    role: viewer\n");
  try {
    const get = async (url: string, q: string) => {
      const r = await fetch(`${url}/api/v1/mtr/snapshots${q}`);
      return { status: r.status, body: (await r.json()) as { snapshots?: MtrSnapshot[] } };
    };
    assert.equal((await get(s.httpUrl, "")).status, 400);
    assert.equal((await get(s.httpUrl, "?source=a")).status, 400);
    assert.equal((await get(s.httpUrl, "?destination=b")).status, 400);
    assert.equal((await get(s.httpUrl, "?source=&destination=b")).status, 400);
    const ok = await get(s.httpUrl, "?source=a&destination=b");
    assert.deepEqual(ok, { status: 200, body: { snapshots: [] } });
    assert.equal((await get(bare.httpUrl, "?source=a&destination=b")).status, 503);
  } finally {
    await Promise.all([s.stop(), bare.stop()]);
  }
});

test("fed by the controller event stream: each MTRCompleted event is one trace (runs leave it to the events)", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const evc = new Controller({
    config: testConfig({ agentTtl: 600_000, eventsEnabled: true }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await evc.start();
  const hops = JSON.stringify({
    target: "198.18.0.72",
    hops: [{ number: 1, ip: "198.18.0.72", rtt: 5, lossRatio: 0 }],
  });
  const ev = [
    await TaskAgent.start(evc, "e1", "198.18.0.71", () => ({ details_json: hops })),
    await TaskAgent.start(evc, "e2", "198.18.0.72", () => ({})),
  ];
  const s = await startConsole(
    `auth:\n  anonymous:\n    role: operator\ncontroller:\n  url: http://127.0.0.1:${evc.httpPort}\n  grpcAddress: 127.0.0.1:${evc.grpcPort}\n`,
    { db: await b.fresh() },
  );
  await s.whenReady();
  try {
    await eventually("fed", async () => (s.history.ingester?.status().connected ? true : undefined), 10_000);
    const res = await fetch(`${s.httpUrl}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "mtr", pairs: [{ source: "e1", destination: "e2" }] }),
    });
    assert.equal(res.status, 201);
    const snaps = await eventually(
      "the MTRCompleted event stored as a path",
      async () => {
        const r = await fetch(`${s.httpUrl}/api/v1/mtr/snapshots?source=e1&destination=e2`);
        const body = (await r.json()) as { snapshots: MtrSnapshot[] };
        return body.snapshots.length > 0 ? body.snapshots : undefined;
      },
      10_000,
    );
    assert.deepEqual(
      snaps.map((x) => [x.origin, x.traces, x.hops.map((h) => h.ip)]),
      [["reactive", 1, ["198.18.0.72"]]],
    );
  } finally {
    await s.stop();
    for (const a of ev) a.close();
    await evc.stop();
  }
});
