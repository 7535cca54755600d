/**
 * Schedules in virtual time against a real controller whose agents answer external diagnostics: rounds at their
 * cadence from every agent the definition picks; stamps, state and the last failure; kind mtr traces kept in the
 * path history; 422 for a kind that cannot run its check (and a definition edit that would leave one unable to
 * run), 409 for deleting a scheduled definition; bad input changes nothing; who may (each role, token, anonymous).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CheckInput, Schedule } from "@svc/contract";
import { Controller, testConfig } from "@svc/controller";
import { ControllerClient } from "../fleet/controller-client.ts";
import { silent } from "../log.ts";
import { MtrHistory } from "../runs/mtr-history.ts";
import { TaskAgent } from "../runs/testdata/task-agent.ts";
import type { AuditActor } from "../store/audit-row.ts";
import { migrate } from "../store/migrations.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";
import { snapshot } from "../testing/store-snapshot.ts";
import { VirtualScheduler } from "../testing/virtual-scheduler.ts";
import { Catalog } from "./catalog.ts";
import { Schedules } from "./schedules.ts";

let dbs: EachDb;
let envs: LocalEnvs;
let controller: Controller;
const agents: TaskAgent[] = [];
before(async () => {
  dbs = await eachDb();
  envs = await localEnvs();
  controller = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  const hops = JSON.stringify({
    target: "198.18.9.9",
    hops: [{ number: 1, ip: "198.18.9.9", rtt: 1000, lossRatio: 0 }],
  });
  agents.push(
    await TaskAgent.start(controller, "s1", "198.18.0.51", (t) =>
      t.type === "mtr" ? { details_json: hops } : {},
    ),
  );
  agents.push(
    await TaskAgent.start(controller, "s2", "198.18.0.52", () => ({ success: false, error: "timed out" })),
  );
});
after(async () => {
  for (const a of agents) a.close();
  await controller.stop();
  await dbs.close();
  await envs.close();
});

const actor: AuditActor = { subject: "local:x", subjectDisplay: "x", action: "test", remoteAddr: "" };
const def = (over: Partial<CheckInput> & Pick<CheckInput, "targetId">): CheckInput => ({
  name: "pg",
  type: "tcp",
  params: {},
  sources: { nodes: ["s1"], zones: [] },
  intervalSeconds: 30,
  timeoutSeconds: 5,
  enabled: true,
  ...over,
});

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: schedules run at their cadence; state, stamps, last failure; mtr traces kept`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const db = await b.fresh();
    await migrate(db);
    const t0 = Date.UTC(2026, 2, 1);
    const scheduler = new VirtualScheduler(t0);
    const client = new ControllerClient({ url: `http://127.0.0.1:${controller.httpPort}`, timeoutMs: 5000 });
    const catalog = new Catalog({
      db,
      now: () => scheduler.now(),
      liveAgents: async () => (await client.topology()).agents,
    });
    const mtr = new MtrHistory(db);
    const schedules = new Schedules({ db, scheduler, catalog, controller: client, mtr, log: silent });
    const target = await catalog.createTarget({ name: "db", address: "198.18.9.9:5432" }, actor);
    const tcp = await catalog.createCheck(def({ targetId: target.id }), actor);
    const dns = await catalog.createCheck(
      def({ name: "dns", targetId: target.id, type: "dns", params: { query: "x.example" }, enabled: false }),
      actor,
    );
    const s1Tasks = () => agents[0]?.tasks.filter((x) => x.destination === "db").length ?? 0;
    const before = s1Tasks();

    await assert.rejects(
      schedules.create(
        { name: "x", definitionId: dns.id, kind: "check", intervalSeconds: 60, enabled: false },
        actor,
      ),
      /cannot run as a one-shot diagnostic/,
    );
    await assert.rejects(
      schedules.create(
        { name: "x", definitionId: "nope", kind: "check", intervalSeconds: 60, enabled: true },
        actor,
      ),
      /no such check definition/,
    );
    const every = await schedules.create(
      { name: "every minute", definitionId: tcp.id, kind: "check", intervalSeconds: 60, enabled: true },
      actor,
    );
    assert.equal(every.state, "active");
    assert.equal(every.nextRunAt, new Date(t0).toISOString());
    schedules.start();
    try {
      await schedules.settled();
      let s = (await schedules.list())[0] as Schedule;
      assert.equal(s.lastRunAt, new Date(t0).toISOString());
      assert.equal(s.nextRunAt, new Date(t0 + 60_000).toISOString());
      assert.equal(s.state, "active");
      assert.equal(s1Tasks(), before + 1);
      const task = agents[0]?.tasks.at(-1);
      assert.deepEqual(
        [task?.type, task?.destination_kind, task?.address],
        ["tcp", "external", "198.18.9.9"],
      );
      scheduler.advance(55_000);
      await schedules.settled();
      assert.equal(s1Tasks(), before + 1, "not due yet");
      scheduler.advance(5_000);
      await schedules.settled();
      assert.equal(s1Tasks(), before + 2);
      // s2 joins and fails: the round fails, naming it
      await catalog.updateCheck(
        tcp.id,
        def({ targetId: target.id, sources: { nodes: ["s1", "s2"], zones: [] } }),
        actor,
      );
      scheduler.advance(60_000);
      await schedules.settled();
      s = (await schedules.list())[0] as Schedule;
      assert.equal(s.state, "failing", JSON.stringify(s));
      assert.equal(s.lastFailure, "s2: timed out");
      assert.equal(s.lastFailureAt, new Date(t0 + 120_000).toISOString());
      // a definition edit that would leave the schedule unable to run is refused; deleting it is 409
      await assert.rejects(
        catalog.updateCheck(
          tcp.id,
          def({ targetId: target.id, type: "dns", params: { query: "q.example" }, enabled: false }),
          actor,
        ),
        /schedule every minute could no longer run/,
      );
      await assert.rejects(catalog.deleteCheck(tcp.id, actor), /used by 1 schedule/);
      // pause, then mtr traces from the definition's agents into the path history
      await schedules.update(
        every.id,
        { name: "every minute", definitionId: tcp.id, kind: "check", intervalSeconds: 60, enabled: false },
        actor,
      );
      assert.equal((await schedules.list())[0]?.state, "paused");
      await catalog.updateCheck(tcp.id, def({ targetId: target.id }), actor);
      await schedules.create(
        { name: "trace", definitionId: tcp.id, kind: "mtr", intervalSeconds: 600, enabled: true },
        actor,
      );
      scheduler.advance(5_000);
      await schedules.settled();
      const paths = await mtr.list("s1", "db");
      assert.equal(paths.length, 1);
      assert.equal(paths[0]?.origin, "schedule");
    } finally {
      await schedules.stop();
    }
  });
}

test("schedule routes: refusals change nothing; who may", async () => {
  const e = await envs.env("local", `controller:\n  url: http://127.0.0.1:${controller.httpPort}\n`);
  try {
    const t = await w(e.admin, "POST", "/api/v1/targets", { name: "db", address: "198.18.9.9:5432" });
    const targetId = (t.body as { id: string }).id;
    const c = await w(e.admin, "POST", "/api/v1/checks", {
      name: "pg",
      targetId,
      type: "tcp",
      sources: { nodes: ["s1"] },
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const definitionId = (c.body as { id: string }).id;
    const before = await snapshot(e.db);
    const refusals: [string, string, unknown, number][] = [
      ["POST", "/api/v1/schedules", { name: "x", definitionId, intervalSeconds: 10 }, 400],
      ["POST", "/api/v1/schedules", { name: "x", definitionId, kind: "ping" }, 400],
      ["POST", "/api/v1/schedules", { name: "x", definitionId, enabled: "yes" }, 400],
      ["POST", "/api/v1/schedules", { name: "x", definitionId: "nope" }, 422],
      ["PUT", "/api/v1/schedules/nope", { name: "x", definitionId }, 404],
      ["DELETE", `/api/v1/schedules/${"x".repeat(65)}`, undefined, 404],
    ];
    for (const [method, path, body, want] of refusals)
      assert.equal(
        (await w(e.admin, method, path, body)).status,
        want,
        `${method} ${path} ${JSON.stringify(body)}`,
      );
    assert.deepEqual(await snapshot(e.db), before);

    const callers = await roleCallers(e);
    const allowed = {
      admin: true,
      operator: true,
      viewer: false,
      "alert-editor": false,
      token: false,
      anonymous: false,
    };
    for (const [who, ok] of Object.entries(allowed)) {
      const cl = callers[who];
      assert.ok(cl);
      const h = who === "token" ? { authorization: "Bearer secret-1" } : undefined;
      const made = await w(cl, "POST", "/api/v1/schedules", { name: `s-${who}`, definitionId }, h);
      const id = (made.body as { id?: string }).id ?? "none";
      const got = [
        (await w(cl, "GET", "/api/v1/schedules", undefined, h)).status,
        made.status,
        (await w(cl, "PUT", `/api/v1/schedules/${id}`, { name: "r", definitionId, enabled: false }, h))
          .status,
        (await w(cl, "DELETE", `/api/v1/schedules/${id}`, undefined, h)).status,
      ];
      const denied = who === "anonymous" ? 401 : 403;
      assert.deepEqual(got, ok ? [200, 201, 200, 204] : [denied, denied, denied, denied], who);
    }
  } finally {
    await e.server.stop();
  }
});
