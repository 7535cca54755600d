/**
 * The continuous fan-out against a real controller, in virtual time (ManualTicker): enabled definitions become
 * external-check specs on the agents their projection picks; a catalog change is sent at once; disabled and
 * unrunnable definitions are not sent; a restarted controller gets the assignment back within one period; over
 * budget, the newest whole definitions are left out and counted; the real 8 MiB budget holds.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CheckInput } from "@svc/contract";
import { parseConsoleConfig } from "../config/load.ts";
import { ManualTicker } from "../live/ticker.ts";
import { silent } from "../log.ts";
import { ConsoleMetrics } from "../metrics.ts";
import type { AuditActor } from "../store/audit-row.ts";
import type { Db } from "../store/db.ts";
import { migrate } from "../store/migrations.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { EXTERNAL_CHECKS_MAX_BYTES, planFanout } from "./fanout.ts";
import { Operations } from "./operations.ts";
import { type LiveController, startLiveController } from "./testdata/live-controller.ts";

let dbs: EachDb;
let ctl: LiveController;
before(async () => {
  dbs = await eachDb();
  ctl = await startLiveController([
    { node: "node-1", zone: "z1", capabilities: ["external-checks", "plane:tcp", "plane:icmp"] },
    { node: "node-2", zone: "z1", capabilities: ["external-checks", "plane:tcp", "plane:http"] },
    { node: "node-3", zone: "z2", capabilities: ["plane:tcp", "plane:icmp"] },
  ]);
});
after(async () => {
  await dbs.close();
  await ctl.close();
});

const actor: AuditActor = {
  subject: "test",
  subjectDisplay: "test",
  action: "test",
  remoteAddr: "127.0.0.1",
};
const check = (over: Partial<CheckInput> & Pick<CheckInput, "name" | "targetId" | "type">): CheckInput => ({
  params: {},
  sources: { nodes: [], zones: [] },
  intervalSeconds: 30,
  timeoutSeconds: 5,
  enabled: true,
  ...over,
});

async function ops(db: Db, maxBytes?: number) {
  await migrate(db);
  const ticker = new ManualTicker();
  const metrics = new ConsoleMetrics("svc", { storeReady: () => true });
  let t = Date.UTC(2026, 2, 1);
  const o = new Operations({
    config: parseConsoleConfig(`controller:\n  url: ${ctl.url}\n`, {}).config,
    db,
    now: () => t++,
    log: silent,
    metrics,
    every: ticker.every,
    maxBytes,
    publish: () => {},
  });
  const skipped = async () =>
    (await metrics.registry.getSingleMetricAsString("svc_console_external_specs_skipped_total")).match(
      /reason="over-budget"} (\d+)/,
    )?.[1];
  return { o, ticker, skipped };
}

const specIds = (agent: string) => ctl.controller.externalChecks.specsOf(agent).map((s) => s.definitionId);

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: enabled definitions reach the agents that can run them, and come back after a restart`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const { o, ticker } = await ops(await b.fresh());
    try {
      const host = await o.catalog.createTarget({ name: "db", address: "198.18.9.9:5432" }, actor);
      const url = await o.catalog.createTarget({ name: "web", address: "http://198.18.9.9/health" }, actor);
      const tcp = await o.catalog.createCheck(check({ name: "tcp", targetId: host.id, type: "tcp" }), actor);
      const http = await o.catalog.createCheck(
        check({ name: "http", targetId: url.id, type: "http" }),
        actor,
      );
      await o.catalog.createCheck(
        check({ name: "off", targetId: host.id, type: "icmp", enabled: false }),
        actor,
      );
      o.start();
      let r = await o.fanout.sync();
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(specIds("id-node-1"), [tcp.id]);
      assert.deepEqual(specIds("id-node-2"), [tcp.id, http.id]);
      assert.deepEqual(specIds("id-node-3"), []);
      const s = ctl.controller.externalChecks.specsOf("id-node-2")[0];
      assert.deepEqual(s?.target, { name: "db", kind: "host", address: "198.18.9.9", port: 5432 });
      assert.equal(s?.intervalNs, 30e9);
      assert.equal(s?.timeoutNs, 5e9);
      // a change is sent at once (the catalog calls sync)
      await o.catalog.updateCheck(
        tcp.id,
        check({ name: "tcp", targetId: host.id, type: "tcp", enabled: false }),
        actor,
      );
      r = await o.fanout.sync();
      assert.deepEqual(specIds("id-node-1"), []);
      assert.deepEqual(specIds("id-node-2"), [http.id]);
      // identical re-send changes nothing
      r = await o.fanout.sync();
      assert.ok(r.ok && r.answer.changed === 0);
      // controller restart: empty until the next period's send
      await o.fanout.settled();
      await ctl.restart();
      assert.deepEqual(specIds("id-node-2"), []);
      ticker.tick(15_000);
      await o.fanout.sync();
      assert.deepEqual(specIds("id-node-2"), [http.id]);
    } finally {
      await o.stop();
      ctl.controller.externalChecks.replace(new Map());
    }
  });
}

test("over budget: the newest whole definitions are left out and counted", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const { o, skipped } = await ops(await b.fresh(), 1200);
  try {
    const host = await o.catalog.createTarget({ name: "db", address: "198.18.9.9:5432" }, actor);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await o.catalog.createCheck(
            check({ name: `c${i}`, targetId: host.id, type: "tcp", params: { i } }),
            actor,
          )
        ).id,
      );
    const r = await o.fanout.sync();
    assert.ok(r.ok, JSON.stringify(r));
    assert.ok(JSON.stringify(r.plan.body).length <= 1200);
    assert.equal(Buffer.byteLength(JSON.stringify(r.plan.body)), r.plan.bytes);
    const kept = specIds("id-node-1");
    assert.ok(kept.length >= 1 && kept.length < 6, String(kept.length));
    assert.deepEqual(kept, ids.slice(0, kept.length), "the oldest definitions are kept");
    assert.deepEqual(r.plan.leftOut, ids.slice(kept.length));
    // two agents per definition
    assert.equal(await skipped(), String((6 - kept.length) * 2));
  } finally {
    await o.stop();
    ctl.controller.externalChecks.replace(new Map());
  }
});

test("the 8 MiB budget: a body just under it is accepted by the controller", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b);
  const db = await b.fresh();
  const { o, skipped } = await ops(db);
  try {
    const host = await o.catalog.createTarget({ name: "db", address: "198.18.9.9:5432" }, actor);
    // ~4 KiB params x 2 agents per definition: about 1,050 definitions fill 8 MiB
    const pad = "x".repeat(3900);
    await db.query(
      `INSERT INTO check_definitions (id, name, target_id, type, params, sources, interval_ms, timeout_ms, enabled,
         created_at, updated_at)
       SELECT 'd' || lpad(g::text, 5, '0'), 'c' || g, $1, 'tcp', jsonb_build_object('pad', $2::text),
         '{"nodes":[],"zones":[]}', 30000, 5000, true, g, g FROM generate_series(1, 1200) g`,
      [host.id, pad],
    );
    const r = await o.fanout.sync();
    assert.ok(r.ok, JSON.stringify(r).slice(0, 300));
    assert.ok(r.plan.bytes <= EXTERNAL_CHECKS_MAX_BYTES);
    assert.ok(r.plan.bytes > EXTERNAL_CHECKS_MAX_BYTES - 10_000);
    assert.ok(r.plan.leftOut.length > 0);
    assert.equal(r.plan.leftOut[0], `d${String(1200 - r.plan.leftOut.length + 1).padStart(5, "0")}`);
    assert.equal(await skipped(), String(r.plan.leftOut.length * 2));
    assert.equal(specIds("id-node-1").length, 1200 - r.plan.leftOut.length);
  } finally {
    await o.stop();
    ctl.controller.externalChecks.replace(new Map());
  }
});

test("planFanout: agents without external-checks or the plane get nothing", () => {
  const p = planFanout(
    [
      {
        check: {
          id: "d1",
          name: "x",
          targetId: "t",
          type: "icmp",
          params: {},
          sources: { nodes: [], zones: [] },
          intervalSeconds: 1,
          timeoutSeconds: 1,
          enabled: true,
          createdAt: "",
          updatedAt: "",
        },
        target: { id: "t", name: "t", kind: "host", address: "h", port: 0, createdAt: "", updatedAt: "" },
        createdAtMs: 0,
      },
    ],
    [
      { id: "a", nodeName: "a", podIP: "", zone: "", capabilities: ["external-checks", "plane:tcp"] },
      { id: "b", nodeName: "b", podIP: "", zone: "", capabilities: ["external-checks"] },
      { id: "c", nodeName: "c", podIP: "", zone: "", capabilities: ["plane:icmp"] },
    ],
  );
  assert.deepEqual(Object.keys(p.body.agents), ["b"]);
});
