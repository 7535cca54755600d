/**
 * Runs in virtual time (VirtualScheduler) against a real controller whose agents answer diagnostics tasks over
 * gRPC, on PGlite and PostgreSQL: expansion and the planned cadence snapshotted; each round at its planned time;
 * progress on `run:{id}`; completed, partial (a pair the controller refuses), interrupted on stop and after a
 * restart (lapsed lease). Cadence rules as pure functions.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Run, RunSpec } from "@svc/contract";
import { Controller, testConfig } from "@svc/controller";
import { UnprocessableError } from "../errors.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import { silent } from "../log.ts";
import type { AuditActor } from "../store/audit-row.ts";
import type { Db } from "../store/db.ts";
import { migrate } from "../store/migrations.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { VirtualScheduler } from "../testing/virtual-scheduler.ts";
import { cadence, expandRun } from "./expand.ts";
import { Runs } from "./runs.ts";
import { TaskAgent } from "./testdata/task-agent.ts";

let dbs: EachDb;
let controller: Controller;
const agents: TaskAgent[] = [];
before(async () => {
  dbs = await eachDb();
  controller = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  let n = 20;
  for (const node of ["n1", "n2", "n3"])
    agents.push(
      await TaskAgent.start(controller, node, `198.18.0.${n++}`, (t) =>
        t.destination === "n3" ? { success: false, error: "connection refused" } : {},
      ),
    );
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

async function engine(db: Db, start = Date.UTC(2026, 2, 1)) {
  await migrate(db);
  const scheduler = new VirtualScheduler(start);
  const client = new ControllerClient({ url: `http://127.0.0.1:${controller.httpPort}`, timeoutMs: 5000 });
  const pushed: Run[] = [];
  const runs = new Runs({
    db,
    scheduler,
    diagnostics: (b) => client.diagnostics(b),
    publish: (topic, data) => {
      assert.equal(topic, `run:${(data as Run).id}`);
      pushed.push(structuredClone(data as Run));
    },
    log: silent,
  });
  return { runs, scheduler, pushed };
}

test("cadence: duration/500 floored at 5 s; mtr 90 s and pmtu 15 s rounds; at most 500 samples", () => {
  assert.deepEqual(cadence("tcp", 20_000), { intervalMs: 5_000, samples: 4 });
  assert.deepEqual(cadence("tcp", 3_600_000), { intervalMs: 7_200, samples: 500 });
  assert.deepEqual(cadence("tcp", 86_400_000), { intervalMs: 172_800, samples: 500 });
  assert.deepEqual(cadence("mtr", 3_600_000), { intervalMs: 90_000, samples: 40 });
  assert.deepEqual(cadence("mtr", 60_000), { intervalMs: 90_000, samples: 1 });
  assert.deepEqual(cadence("mtr", 86_400_000), { intervalMs: 172_800, samples: 500 });
  assert.deepEqual(cadence("pmtu", 100_000), { intervalMs: 15_000, samples: 7 });
  assert.deepEqual(cadence("icmp", 7_000), { intervalMs: 5_000, samples: 2 });
  const instant = expandRun({
    type: "tcp",
    pairs: [],
    sources: ["a", "b"],
    destinations: ["a", "b"],
    durationSeconds: 0,
  });
  assert.deepEqual(instant, {
    type: "tcp",
    pairs: [
      { source: "a", destination: "b" },
      { source: "b", destination: "a" },
    ],
    durationSeconds: 0,
  });
  const refused = [
    { type: "tcp", pairs: [], sources: ["a"], destinations: ["a"], durationSeconds: 0 },
    { type: "tcp", pairs: [], sources: [], destinations: [], durationSeconds: 0 },
    { type: "tcp", pairs: [], sources: ["a", "b"], destinations: ["c"], durationSeconds: 4 },
    { type: "tcp", pairs: [], sources: ["a", "b"], destinations: ["c"], durationSeconds: 86_401 },
    {
      type: "tcp",
      pairs: [],
      sources: Array.from({ length: 11 }, (_, i) => `s${i}`),
      destinations: Array.from({ length: 10 }, (_, i) => `d${i}`),
      durationSeconds: 0,
    },
  ] as const;
  for (const r of refused)
    assert.throws(
      () =>
        expandRun({ ...r, pairs: [...r.pairs], sources: [...r.sources], destinations: [...r.destinations] }),
      UnprocessableError,
    );
});

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: a duration run probes each pair at its planned cadence and ends completed`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const { runs, scheduler, pushed } = await engine(await b.fresh());
    runs.start();
    const tasksBefore = agents[0]?.tasks.filter((x) => x.destination === "n2").length ?? 0;
    try {
      const run = await runs.create(
        {
          type: "tcp",
          pairs: [],
          sources: ["n1", "n2"],
          destinations: ["n1", "n2", "n3"],
          durationSeconds: 20,
        },
        actor,
      );
      assert.equal(run.status, "running");
      assert.equal(run.plannedSampleIntervalNs, 5e9);
      assert.equal(run.plannedSamplesPerPair, 4);
      assert.equal(run.spec.plannedSampleIntervalNs, 5e9);
      assert.equal(run.pairs.length, 4);
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) {
        scheduler.advance(i === 0 ? 0 : 4_999);
        await runs.settled();
        if (i > 0) {
          // not yet: the round is planned 5 s after the previous one
          assert.equal((await runs.get(run.id)).pairs[0]?.samples, i);
          scheduler.advance(1);
          await runs.settled();
        }
        seen.push((await runs.get(run.id)).pairs[0]?.samples ?? -1);
      }
      assert.deepEqual(seen, [1, 2, 3, 4]);
      const done = await runs.get(run.id);
      assert.equal(done.status, "completed");
      assert.equal(done.finishedAt, new Date(Date.UTC(2026, 2, 1) + 15_000).toISOString());
      const byPair = Object.fromEntries(done.pairs.map((p) => [`${p.source}->${p.destination}`, p]));
      assert.deepEqual(
        Object.values(byPair).map((p) => [p.state, p.samples]),
        [
          ["completed", 4],
          ["completed", 4],
          ["completed", 4],
          ["completed", 4],
        ],
      );
      assert.equal(byPair["n1->n3"]?.successes, 0);
      assert.equal(byPair["n1->n3"]?.lastError, "connection refused");
      assert.equal(byPair["n1->n2"]?.successes, 4);
      assert.equal(agents[0]?.tasks.filter((x) => x.destination === "n2").length, tasksBefore + 4);
      // progress: created, after each round but the last, then the terminal state
      assert.deepEqual(
        pushed.filter((p) => p.id === run.id).map((p) => [p.status, p.pairs[0]?.samples]),
        [
          ["running", 0],
          ["running", 1],
          ["running", 2],
          ["running", 3],
          ["completed", 4],
        ],
      );
      // instant: no planned cadence; a pair the controller refuses (no such node: 404) fails; the run is partial
      const partial = await runs.create(
        {
          type: "icmp",
          pairs: [
            { source: "n1", destination: "n2" },
            { source: "ghost", destination: "n2" },
          ],
          sources: [],
          destinations: [],
          durationSeconds: 0,
        },
        actor,
      );
      assert.equal(partial.plannedSampleIntervalNs, undefined);
      assert.equal(partial.spec.plannedSamplesPerPair, undefined);
      scheduler.advance(0);
      await runs.settled();
      const p = await runs.get(partial.id);
      assert.equal(p.status, "partial");
      assert.deepEqual(
        p.pairs.map((x) => x.state),
        ["completed", "failed"],
      );
      assert.match(p.pairs[1]?.lastError ?? "", /controller answered 404/);
      assert.deepEqual(
        (await runs.list(50)).map((r) => r.id),
        [partial.id, run.id],
      );
    } finally {
      await runs.stop();
    }
  });
}

test("a run in flight ends interrupted: on stop, and after a restart once its lease lapsed", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const db = await b.fresh();
  const first = await engine(db);
  first.runs.start();
  const spec: RunSpec = {
    type: "tcp",
    pairs: [{ source: "n1", destination: "n2" }],
    sources: [],
    destinations: [],
    durationSeconds: 600,
  };
  const a = await first.runs.create({ ...spec, pairs: [...spec.pairs] }, actor);
  first.scheduler.advance(0);
  await first.runs.settled();
  await first.runs.stop();
  assert.equal((await first.runs.get(a.id)).status, "interrupted");

  // a console that died without stopping: the row stays running with its lease
  const t0 = Date.UTC(2026, 2, 2);
  const dead = await engine(db, t0);
  dead.runs.start();
  const c = await dead.runs.create({ ...spec, pairs: [...spec.pairs] }, actor);
  dead.scheduler.advance(0);
  await dead.runs.settled();
  assert.equal((await dead.runs.get(c.id)).status, "running");
  // the next console starts 10 s later: the lease (60 s) still holds, then lapses
  const next = await engine(db, t0 + 10_000);
  next.runs.start();
  await next.runs.sweep();
  assert.equal((await next.runs.get(c.id)).status, "running");
  next.scheduler.advance(60_000);
  await next.runs.sweep();
  const ended = await next.runs.get(c.id);
  assert.equal(ended.status, "interrupted");
  assert.ok(next.pushed.some((r) => r.id === c.id && r.status === "interrupted"));
  await next.runs.stop();
});

test("a run whose controller cannot be reached ends failed, each pair with the reason", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const db = await b.fresh();
  await migrate(db);
  const scheduler = new VirtualScheduler(Date.UTC(2026, 2, 3));
  const dead = new ControllerClient({ url: "http://127.0.0.1:9", timeoutMs: 1000 });
  const runs = new Runs({
    db,
    scheduler,
    diagnostics: (x) => dead.diagnostics(x),
    publish: () => {},
    log: silent,
  });
  runs.start();
  try {
    const r = await runs.create(
      {
        type: "tcp",
        pairs: [{ source: "n1", destination: "n2" }],
        sources: [],
        destinations: [],
        durationSeconds: 0,
      },
      actor,
    );
    scheduler.advance(0);
    await runs.settled();
    const done = await runs.get(r.id);
    assert.equal(done.status, "failed");
    assert.deepEqual(
      done.pairs.map((p) => [p.state, p.samples, p.lastStatus, p.lastError]),
      [["failed", 0, null, "controller unreachable"]],
    );
  } finally {
    await runs.stop();
  }
});
