/**
 * The run routes through a local-mode console and a real controller whose agents answer tasks: an instant run
 * ends completed (read back by id and in the list); 422 for specs that cannot expand, 400 for wrong types, 404 for
 * unknown and malformed ids, none of which changes anything; each built-in role, a token and an anonymous caller.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Run } from "@svc/contract";
import { Controller, testConfig } from "@svc/controller";
import { eventually } from "../../../../test/helpers/env.ts";
import { startConsole, TestClock } from "../testing/harness.ts";
import { type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";
import { snapshot } from "../testing/store-snapshot.ts";
import { testDatabases } from "../testing/test-db.ts";
import { TaskAgent } from "./testdata/task-agent.ts";

let envs: LocalEnvs;
let controller: Controller;
const agents: TaskAgent[] = [];
before(async () => {
  envs = await localEnvs();
  controller = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  agents.push(await TaskAgent.start(controller, "node-1", "198.18.0.31", () => ({})));
  agents.push(await TaskAgent.start(controller, "node-2", "198.18.0.32", () => ({})));
});
after(async () => {
  for (const a of agents) a.close();
  await controller.stop();
  await envs.close();
});

test("runs: create, read, refusals, and who may", async () => {
  const e = await envs.env("local", `controller:\n  url: http://127.0.0.1:${controller.httpPort}\n`);
  try {
    const ok = await w(e.admin, "POST", "/api/v1/runs", {
      type: "tcp",
      sources: ["node-1", "node-2"],
      destinations: ["node-1", "node-2"],
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const run = ok.body as Run;
    assert.equal(run.pairs.length, 2);
    assert.equal("plannedSampleIntervalNs" in run, false);
    const done = await eventually(
      "run completed",
      async () => {
        const r = (await w(e.admin, "GET", `/api/v1/runs/${run.id}`)).body as Run;
        return r.status === "running" ? undefined : r;
      },
      10_000,
    );
    assert.equal(done.status, "completed");
    assert.deepEqual(
      done.pairs.map((p) => [p.state, p.samples, p.successes]),
      [
        ["completed", 1, 1],
        ["completed", 1, 1],
      ],
    );
    const dur = await w(e.admin, "POST", "/api/v1/runs", {
      type: "mtr",
      pairs: [{ source: "node-1", destination: "node-2" }],
      durationSeconds: 3600,
    });
    assert.equal(dur.status, 201);
    assert.equal((dur.body as Run).plannedSampleIntervalNs, 90e9);
    assert.equal((dur.body as Run).plannedSamplesPerPair, 40);
    assert.equal((dur.body as Run).spec.plannedSamplesPerPair, 40);

    // its first round is at once, the next 90 s later: nothing moves while the refusals are checked
    await eventually(
      "first mtr round",
      async () => {
        const r = (await w(e.admin, "GET", `/api/v1/runs/${(dur.body as Run).id}`)).body as Run;
        return r.pairs[0]?.samples === 1 ? true : undefined;
      },
      10_000,
    );
    const before = await snapshot(e.db);
    const many = Array.from({ length: 11 }, (_, i) => `n${i}`);
    const refusals: [string, string, unknown, number][] = [
      ["POST", "/api/v1/runs", { type: "tcp", sources: ["a"], destinations: ["a"] }, 422],
      ["POST", "/api/v1/runs", { type: "tcp" }, 422],
      ["POST", "/api/v1/runs", { type: "tcp", sources: many, destinations: many }, 422],
      [
        "POST",
        "/api/v1/runs",
        { type: "tcp", pairs: [{ source: "a", destination: "b" }], durationSeconds: 2 },
        422,
      ],
      [
        "POST",
        "/api/v1/runs",
        { type: "tcp", pairs: [{ source: "a", destination: "b" }], durationSeconds: 90_000 },
        422,
      ],
      ["POST", "/api/v1/runs", { type: "ping", pairs: [{ source: "a", destination: "b" }] }, 400],
      ["POST", "/api/v1/runs", { type: "tcp", pairs: [{ source: "a" }] }, 400],
      [
        "POST",
        "/api/v1/runs",
        { type: "tcp", pairs: [{ source: "a", destination: "b" }], durationSeconds: "1h" },
        400,
      ],
      ["POST", "/api/v1/runs", { type: "tcp", sources: ["a".repeat(300)], destinations: ["b"] }, 400],
      ["GET", "/api/v1/runs/00000000-0000-0000-0000-000000000000", undefined, 404],
      ["GET", `/api/v1/runs/${"x".repeat(65)}`, undefined, 404],
      ["GET", "/api/v1/runs?limit=0", undefined, 400],
    ];
    for (const [method, path, body, want] of refusals) {
      const r = await w(e.admin, method, path, body);
      assert.equal(r.status, want, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    assert.deepEqual(await snapshot(e.db), before);
    const list = (await w(e.admin, "GET", "/api/v1/runs")).body as { runs: Run[] };
    assert.deepEqual(
      list.runs.map((r) => r.id),
      [(dur.body as Run).id, run.id],
    );

    // who may: runs:read for every built-in role, runs:create for all but viewer
    const callers = await roleCallers(e);
    const want: Record<string, number[]> = {
      admin: [200, 200, 201],
      operator: [200, 200, 201],
      "alert-editor": [200, 200, 201],
      viewer: [200, 200, 403],
      token: [403, 403, 403],
      anonymous: [401, 401, 401],
    };
    for (const [who, codes] of Object.entries(want)) {
      const c = callers[who];
      assert.ok(c);
      const h = who === "token" ? { authorization: "Bearer secret-1" } : undefined;
      const got = [
        (await w(c, "GET", "/api/v1/runs", undefined, h)).status,
        (await w(c, "GET", `/api/v1/runs/${run.id}`, undefined, h)).status,
        (
          await w(
            c,
            "POST",
            "/api/v1/runs",
            { type: "icmp", pairs: [{ source: "node-2", destination: "node-1" }] },
            h,
          )
        ).status,
      ];
      assert.deepEqual(got, codes, who);
    }
  } finally {
    await e.server.stop();
  }
});

test("anonymous callers: 10 runs or pair checks per address per minute, then 429 with Retry-After (virtual clock)", async () => {
  const dbs = await testDatabases();
  const clock = new TestClock(Date.UTC(2026, 2, 1));
  const s = await startConsole(
    `auth:\n  anonymous:\n    role: operator\ncontroller:\n  url: http://127.0.0.1:${controller.httpPort}\n`,
    { db: (await dbs.fresh()).db, clock },
  );
  await s.whenReady();
  const start = () =>
    fetch(`${s.httpUrl}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "tcp", pairs: [{ source: "node-1", destination: "node-2" }] }),
    });
  try {
    for (let i = 0; i < 10; i++) assert.equal((await start()).status, 201);
    const limited = await start();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    // the pair page's check is a run of one pair: it spends the same budget
    const check = () =>
      fetch(`${s.httpUrl}/api/v1/fleet/check`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ source: "node-1", destination: "node-2" }),
      });
    assert.equal((await check()).status, 429);
    clock.advance(60_000);
    assert.equal((await start()).status, 201);
    for (let i = 0; i < 9; i++) assert.notEqual((await check()).status, 429);
    assert.equal((await start()).status, 429, "nine checks and one run spent the minute's ten");
  } finally {
    await s.stop();
    await dbs.close();
  }
});

test("each scheduled round is a run with origin schedule, listed beside manual runs and purged past retention", async () => {
  const e = await envs.env(
    "local",
    `  retentionDays: 1\ncontroller:\n  url: http://127.0.0.1:${controller.httpPort}\n`,
  );
  try {
    const target = await w(e.admin, "POST", "/api/v1/targets", { name: "db", address: "198.18.9.9:5432" });
    assert.equal(target.status, 201, JSON.stringify(target.body));
    const targetId = (target.body as { id: string }).id;
    const check = await w(e.admin, "POST", "/api/v1/checks", {
      name: "pg",
      targetId,
      type: "tcp",
      sources: { nodes: ["node-1"], zones: [] },
    });
    assert.equal(check.status, 201, JSON.stringify(check.body));
    const schedule = await w(e.admin, "POST", "/api/v1/schedules", {
      name: "every minute",
      definitionId: (check.body as { id: string }).id,
      kind: "check",
      intervalSeconds: 60,
    });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    const scheduleId = (schedule.body as { id: string }).id;
    const manual = await w(e.admin, "POST", "/api/v1/runs", {
      type: "tcp",
      pairs: [{ source: "node-1", destination: "node-2" }],
    });
    assert.equal(manual.status, 201);

    // the schedule's first round is due at once: the sweep (every 5 s) runs it and records it as a run
    const scheduled = await eventually(
      "a run recorded for the schedule's round",
      async () => {
        const list = (await w(e.admin, "GET", "/api/v1/runs")).body as { runs: Run[] };
        return list.runs.find((r) => r.origin === "schedule" && r.status !== "running");
      },
      30_000,
    );
    assert.equal(scheduled.status, "completed", JSON.stringify(scheduled));
    assert.deepEqual(scheduled.schedule, { id: scheduleId, name: "every minute" });
    assert.deepEqual(scheduled.target, { id: targetId, name: "db" });
    assert.equal(scheduled.error, null);
    assert.equal(scheduled.spec.type, "tcp");
    assert.deepEqual(
      scheduled.pairs.map((p) => [p.source, p.destination, p.state, p.samples, p.successes]),
      [["node-1", "db", "completed", 1, 1]],
    );
    assert.match(scheduled.createdBy, /every minute/);
    const byId = (await w(e.admin, "GET", `/api/v1/runs/${scheduled.id}`)).body as Run;
    assert.equal(byId.origin, "schedule");
    const manualRun = (await w(e.admin, "GET", `/api/v1/runs/${(manual.body as Run).id}`)).body as Run;
    assert.equal(manualRun.origin, "manual");
    assert.equal(manualRun.schedule, null);

    // retention (database.retentionDays: 1): two days on, the scheduled round is purged with the history; a run
    // started by hand is an operator's record and stays
    const now = e.clock.t;
    e.clock.t = Math.max(Date.now(), now) + 2 * 86_400_000;
    await e.server.purgeHistory();
    e.clock.t = now;
    assert.equal((await w(e.admin, "GET", `/api/v1/runs/${scheduled.id}`)).status, 404);
    assert.equal((await w(e.admin, "GET", `/api/v1/runs/${(manual.body as Run).id}`)).status, 200);
  } finally {
    await e.server.stop();
  }
});
