/**
 * Maintenance window routes: create, list (newest start first), edit, delete; 422 for a window that does not end
 * after it starts and for a scope without its node, pair or target (or with fields it does not use); reading needs
 * maintenance:read (viewer), writing incidents:write (operator, not alert-editor); 503 without a database; the
 * suppressed counter is exposed from the start.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MAINTENANCE_EXAMPLE, type MaintenanceWindow } from "@svc/contract";
import { startConsole } from "../testing/harness.ts";
import { browser, createUser, type LocalEnvs, localEnvs, login, w } from "../testing/local-env.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());

test("maintenance windows: CRUD, 422s, permissions", async () => {
  const e = await envs.env("local");
  try {
    const a = e.admin;
    const created = await w(a, "POST", "/api/v1/maintenance-windows", MAINTENANCE_EXAMPLE);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const win = created.body as MaintenanceWindow;
    assert.deepEqual(
      [win.scope, win.node, win.startAt, win.endAt, win.author],
      ["node", "node-2", "2026-01-01T02:00:00.000Z", "2026-01-01T03:00:00.000Z", "admin"],
    );
    const bad: [unknown, number][] = [
      [{ ...MAINTENANCE_EXAMPLE, endAt: MAINTENANCE_EXAMPLE.startAt }, 422],
      [{ ...MAINTENANCE_EXAMPLE, node: "" }, 422],
      [{ ...MAINTENANCE_EXAMPLE, scope: "pair" }, 422],
      [{ ...MAINTENANCE_EXAMPLE, scope: "fleet" }, 422],
      [{ ...MAINTENANCE_EXAMPLE, scope: "target", node: "", target: "" }, 422],
      [{ ...MAINTENANCE_EXAMPLE, scope: "zone" }, 400],
      [{ ...MAINTENANCE_EXAMPLE, startAt: "yesterday" }, 400],
    ];
    for (const [body, status] of bad)
      assert.equal(
        (await w(a, "POST", "/api/v1/maintenance-windows", body)).status,
        status,
        JSON.stringify(body),
      );
    const later = { scope: "fleet", startAt: "2026-02-01T00:00:00Z", endAt: "2026-02-01T01:00:00Z" };
    assert.equal((await w(a, "POST", "/api/v1/maintenance-windows", later)).status, 201);
    const pair = { ...MAINTENANCE_EXAMPLE, scope: "pair", node: "", source: "a", destination: "b" };
    const upd = await w(a, "PUT", `/api/v1/maintenance-windows/${win.id}`, pair);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.deepEqual(
      [(upd.body as MaintenanceWindow).source, (upd.body as MaintenanceWindow).destination],
      ["a", "b"],
    );
    const list = (await a.request("GET", "/api/v1/maintenance-windows")).body as {
      windows: MaintenanceWindow[];
    };
    assert.deepEqual(
      list.windows.map((x) => x.scope),
      ["fleet", "pair"],
      "newest start first",
    );

    for (const [role, canWrite] of [
      ["viewer", false],
      ["alert-editor", false],
      ["operator", true],
    ] as const) {
      await createUser(e, `u-${role}`, role);
      const c = browser(e.server);
      assert.equal((await login(c, `u-${role}`, `u-${role}-password-long`)).status, 200);
      assert.equal((await c.request("GET", "/api/v1/maintenance-windows")).status, 200, role);
      const r = await w(c, "POST", "/api/v1/maintenance-windows", MAINTENANCE_EXAMPLE);
      assert.equal(r.status, canWrite ? 201 : 403, role);
    }
    assert.equal((await w(a, "DELETE", `/api/v1/maintenance-windows/${win.id}`)).status, 204);
    assert.equal((await w(a, "DELETE", `/api/v1/maintenance-windows/${win.id}`)).status, 404);
    assert.equal((await w(a, "PUT", "/api/v1/maintenance-windows/nope", pair)).status, 404);
    const metrics = await (await fetch(`${e.server.metricsUrl}/metrics`)).text();
    assert.match(metrics, /svc_console_webhook_suppressed_total\{event="alert.fired"\} 0/);
  } finally {
    await e.server.stop();
  }
});

test("503 without a database", async () => {
  const s = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    assert.equal((await browser(s).request("GET", "/api/v1/maintenance-windows")).status, 503);
  } finally {
    await s.stop();
  }
});
