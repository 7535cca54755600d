/**
 * Targets and check definitions on PGlite and PostgreSQL against a real controller with three agents: CRUD with
 * audit rows; addresses read into kind/port; 404 for unknown and malformed ids; 409 for a name taken and for
 * deleting a target in use; 422 for a definition no live agent could run (planes, external-checks, selection,
 * type vs target kind), judged on edit only while enabled; the projection stores nothing; bad input (oversize
 * address and params, wrong types) is 4xx and changes nothing; 503 without a database.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CheckDefinition, CheckProjection, Target } from "@svc/contract";
import type { ConsoleServer } from "../server.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole, TestClock } from "../testing/harness.ts";
import { snapshot } from "../testing/store-snapshot.ts";
import { type LiveController, startLiveController } from "./testdata/live-controller.ts";

let dbs: EachDb;
let ctl: LiveController;
before(async () => {
  dbs = await eachDb();
  ctl = await startLiveController([
    { node: "node-1", zone: "z1", capabilities: ["external-checks", "plane:tcp", "plane:icmp", "plane:mtr"] },
    { node: "node-2", zone: "z1", capabilities: ["plane:tcp", "plane:icmp", "plane:mtr"] },
    {
      node: "node-3",
      zone: "z2",
      capabilities: ["external-checks", "plane:tcp", "plane:http", "plane:dns", "plane:mtr"],
    },
  ]);
});
after(async () => {
  await dbs.close();
  await ctl.close();
});

async function call(s: ConsoleServer, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.httpUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

const msg = (b: unknown) => (b as { error: { message: string } }).error.message;

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: targets and check definitions against the controller's live agents`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const db = await b.fresh();
    const clock = new TestClock(Date.UTC(2026, 2, 1));
    const s = await startConsole(
      `auth:\n  anonymous:\n    role: operator\ncontroller:\n  url: ${ctl.url}\n`,
      {
        db,
        clock,
      },
    );
    await s.whenReady();
    try {
      // targets: kinds and ports read from the address
      const web = await call(s, "POST", "/api/v1/targets", {
        name: "web",
        address: "https://example.com:8443/h",
      });
      assert.equal(web.status, 201, JSON.stringify(web.body));
      const w = web.body as Target;
      assert.deepEqual([w.kind, w.address, w.port], ["url", "https://example.com:8443/h", 8443]);
      const host = (await call(s, "POST", "/api/v1/targets", { name: "db", address: "[2001:db8::1]:5432" }))
        .body as Target;
      assert.deepEqual([host.kind, host.address, host.port], ["host", "2001:db8::1", 5432]);
      const dns = (await call(s, "POST", "/api/v1/targets", { name: "resolver", address: "198.18.5.5" }))
        .body as Target;
      assert.deepEqual([dns.kind, dns.port], ["host", 0]);
      assert.equal(
        (await call(s, "POST", "/api/v1/targets", { name: "web", address: "x.example" })).status,
        409,
      );
      assert.equal((await call(s, "GET", `/api/v1/targets/${w.id}`)).status, 200);
      const list = (await call(s, "GET", "/api/v1/targets")).body as { targets: Target[] };
      assert.deepEqual(
        list.targets.map((x) => x.name),
        ["db", "resolver", "web"],
      );

      // bad input: 4xx, nothing changes
      const before = await snapshot(db);
      const refusals: [string, string, unknown, number][] = [
        ["POST", "/api/v1/targets", { name: "big", address: `a${"b".repeat(2048)}.example` }, 400],
        ["POST", "/api/v1/targets", { name: "multi", address: "é".repeat(1025) }, 400],
        ["POST", "/api/v1/targets", { name: "bad", address: "not an address" }, 422],
        ["POST", "/api/v1/targets", { name: "ftp", address: "ftp://example.com" }, 422],
        ["POST", "/api/v1/targets", { name: "port", address: "example.com:70000" }, 422],
        ["POST", "/api/v1/targets", { name: 5, address: "example.com" }, 400],
        ["POST", "/api/v1/targets", { name: "x", address: "example.com", extra: 1 }, 400],
        ["GET", "/api/v1/targets/no-such-id", undefined, 404],
        ["GET", `/api/v1/targets/${"x".repeat(100)}`, undefined, 404],
        ["PUT", "/api/v1/targets/no-such-id", { name: "z", address: "z.example" }, 404],
        ["DELETE", "/api/v1/targets/%00", undefined, 404],
        ["POST", "/api/v1/checks", { name: "c", targetId: host.id, type: "udp" }, 400],
        [
          "POST",
          "/api/v1/checks",
          { name: "c", targetId: host.id, type: "tcp", params: { x: "y".repeat(4096) } },
          400,
        ],
        ["POST", "/api/v1/checks", { name: "c", targetId: host.id, type: "tcp", enabled: "yes" }, 400],
        ["POST", "/api/v1/checks", { name: "c", targetId: "nope", type: "tcp" }, 422],
        ["POST", "/api/v1/checks", { name: "c", targetId: host.id, type: "http" }, 422],
        ["POST", "/api/v1/checks", { name: "c", targetId: w.id, type: "tcp" }, 422],
        ["POST", "/api/v1/checks", { name: "c", targetId: dns.id, type: "dns" }, 422],
        // node-2 lacks external-checks; node-1 does not run http; zone z9 has nobody
        [
          "POST",
          "/api/v1/checks",
          { name: "c", targetId: host.id, type: "tcp", sources: { nodes: ["node-2"] } },
          422,
        ],
        [
          "POST",
          "/api/v1/checks",
          { name: "c", targetId: w.id, type: "http", sources: { nodes: ["node-1"] } },
          422,
        ],
        [
          "POST",
          "/api/v1/checks",
          { name: "c", targetId: host.id, type: "icmp", sources: { zones: ["z9"] } },
          422,
        ],
        ["PUT", "/api/v1/checks/no-such-id", { name: "c", targetId: host.id, type: "tcp" }, 404],
        ["DELETE", "/api/v1/checks/no-such-id", undefined, 404],
      ];
      for (const [method, path, body, want] of refusals) {
        const r = await call(s, method, path, body);
        assert.equal(
          r.status,
          want,
          `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}: ${JSON.stringify(r.body)}`,
        );
      }
      assert.deepEqual(await snapshot(db), before);
      const noExt = await call(s, "POST", "/api/v1/checks", {
        name: "c",
        targetId: host.id,
        type: "tcp",
        sources: { nodes: ["node-2"] },
      });
      assert.match(msg(noExt.body), /external-checks/);

      // projection: stores nothing, names the agents
      const proj = await call(s, "POST", "/api/v1/checks/projection", {
        name: "d",
        targetId: host.id,
        type: "tcp",
      });
      assert.equal(proj.status, 200);
      const p = proj.body as CheckProjection;
      assert.equal(p.runnable, true);
      assert.deepEqual(
        p.agents.map((a) => a.nodeName),
        ["node-1", "node-3"],
      );
      assert.match(p.reasons.join(), /1 selected agent\(s\) lack the external-checks/);
      const httpProj = (
        await call(s, "POST", "/api/v1/checks/projection", { name: "d", targetId: w.id, type: "http" })
      ).body as CheckProjection;
      assert.deepEqual(
        httpProj.agents.map((a) => a.nodeName),
        ["node-3"],
      );
      const none = (
        await call(s, "POST", "/api/v1/checks/projection", {
          name: "d",
          targetId: host.id,
          type: "icmp",
          sources: { zones: ["z2"] },
        })
      ).body as CheckProjection;
      assert.equal(none.runnable, false);
      const snap = await snapshot(db);
      assert.deepEqual({ ...snap, audit: 0 }, { ...before, audit: 0 }, "the projection stores nothing");

      // create, filter, edit (judged only while enabled), delete; the target in use is 409
      const created = await call(s, "POST", "/api/v1/checks", {
        name: "https health",
        targetId: w.id,
        type: "http",
        params: { method: "GET" },
        intervalSeconds: 10,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const cd = created.body as CheckDefinition;
      assert.deepEqual(cd.sources, { nodes: [], zones: [] });
      assert.equal(cd.timeoutSeconds, 5);
      const tcp = (await call(s, "POST", "/api/v1/checks", { name: "pg", targetId: host.id, type: "tcp" }))
        .body as CheckDefinition;
      const filtered = (await call(s, "GET", `/api/v1/checks?targetId=${w.id}`)).body as {
        checks: CheckDefinition[];
      };
      assert.deepEqual(
        filtered.checks.map((x) => x.id),
        [cd.id],
      );
      assert.equal(((await call(s, "GET", "/api/v1/checks")).body as { checks: unknown[] }).checks.length, 2);
      const edit = { name: "pg", targetId: host.id, type: "tcp", sources: { nodes: ["node-2"] } };
      assert.equal((await call(s, "PUT", `/api/v1/checks/${tcp.id}`, edit)).status, 422);
      const off = await call(s, "PUT", `/api/v1/checks/${tcp.id}`, { ...edit, enabled: false });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal((off.body as CheckDefinition).enabled, false);
      // a target edit that leaves an enabled definition unable to run is 422; the disabled one does not count
      assert.equal(
        (await call(s, "PUT", `/api/v1/targets/${w.id}`, { name: "web", address: "web.example:80" })).status,
        422,
      );
      assert.equal(
        (await call(s, "PUT", `/api/v1/targets/${host.id}`, { name: "db2", address: "https://db" })).status,
        200,
      );
      assert.equal((await call(s, "DELETE", `/api/v1/targets/${w.id}`)).status, 409);
      assert.equal((await call(s, "DELETE", `/api/v1/checks/${cd.id}`)).status, 204);
      assert.equal((await call(s, "DELETE", `/api/v1/targets/${w.id}`)).status, 204);
      assert.equal((await call(s, "GET", `/api/v1/targets/${w.id}`)).status, 404);
      const actions = (
        await db.query<{ action: string }>("SELECT action FROM audit WHERE outcome = 'allowed' ORDER BY id")
      ).map((r) => r.action);
      for (const a of [
        "POST /api/v1/targets",
        "PUT /api/v1/targets/:id",
        "DELETE /api/v1/targets/:id",
        "POST /api/v1/checks",
        "PUT /api/v1/checks/:id",
        "DELETE /api/v1/checks/:id",
        "POST /api/v1/checks/projection",
      ])
        assert.ok(actions.includes(a), a);
    } finally {
      await s.stop();
    }
  });
}

test("without a database: 503", async () => {
  const s = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    assert.equal((await call(s, "GET", "/api/v1/targets")).status, 503);
    assert.equal((await call(s, "GET", "/api/v1/checks")).status, 503);
  } finally {
    await s.stop();
  }
});

test("params nested 10,000 deep: 400 naming the depth on create, edit and projection; nothing changes", async () => {
  const b = dbs.backends.find((x) => x.kind === "pglite");
  assert.ok(b, String(dbs.skipped));
  const db = await b.fresh();
  const s = await startConsole(`auth:\n  anonymous:\n    role: operator\ncontroller:\n  url: ${ctl.url}\n`, {
    db,
    clock: new TestClock(Date.UTC(2026, 2, 1)),
  });
  await s.whenReady();
  try {
    const target = (await call(s, "POST", "/api/v1/targets", { name: "db", address: "198.18.9.9:5432" }))
      .body as Target;
    const made = await call(s, "POST", "/api/v1/checks", { name: "c", targetId: target.id, type: "tcp" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = (made.body as CheckDefinition).id;
    // the body as text: 10,000 nested objects (a JSON.stringify of such a value would be the client's problem)
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const body = `{"name":"deep","targetId":${JSON.stringify(target.id)},"type":"tcp","params":${deep}}`;
    const before = await snapshot(db);
    for (const [method, path] of [
      ["POST", "/api/v1/checks"],
      ["PUT", `/api/v1/checks/${id}`],
      ["POST", "/api/v1/checks/projection"],
    ] as const) {
      const res = await fetch(`${s.httpUrl}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await res.text();
      assert.equal(res.status, 400, `${method} ${path}: ${text}`);
      assert.match(text, /params.*nested deeper than \d+/, `${method} ${path}`);
    }
    assert.deepEqual(await snapshot(db), before);
  } finally {
    await s.stop();
  }
});
