/**
 * Every write route (non-GET) the contract declares, called as the administrator with a valid request, leaves an
 * `allowed` audit row naming it. The list comes from the contract: a new write route without an example below, or
 * without its audit row, fails here. And a write whose audit row cannot be written does not happen.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { pathOf, type RouteSpec, successStatuses } from "@svc/contract";
import { localSubject } from "../store/sql-store.ts";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import { ADMIN_PW, browser, type LocalEnv, type LocalEnvs, localEnvs, login } from "../testing/local-env.ts";
import { EXAMPLES, type Example, storedUser, writeRoutes } from "../testing/write-examples.ts";
import { auditAction } from "./register.ts";

let envs: LocalEnvs;
let controller: FakeController;
before(async () => {
  envs = await localEnvs();
  controller = await startFakeController(snapshotOf(["a", "b"]));
});
after(async () => {
  await envs.close();
  await controller.close();
});

async function call(e: LocalEnv, spec: RouteSpec, ex: Example) {
  const client = ex.client ?? e.admin;
  return client.request(spec.method, pathOf(spec, ex.params), { body: ex.body, csrf: true });
}

test("the example table names exactly the contract's write routes", () => {
  const names = writeRoutes.map((r) => r.name).sort();
  assert.ok(names.length >= 17, names.join(", "));
  assert.deepEqual(Object.keys(EXAMPLES).sort(), names, "a write route without an example, or a stale entry");
});

test("every write route, called validly by the administrator, writes its allowed audit row", async () => {
  const e = await envs.env("local", `controller:\n  url: ${controller.url}\n`);
  try {
    for (const spec of writeRoutes) {
      const make = EXAMPLES[spec.name];
      assert.ok(make, `${spec.name}: no example`);
      const ex = await make(e);
      const before = new Set((await e.store.listAudit(10_000)).map((r) => r.id));
      const res = await call(e, spec, ex);
      assert.ok(
        successStatuses(spec).includes(res.status),
        `${spec.name}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      const rows = (await e.store.listAudit(10_000)).filter((r) => !before.has(r.id));
      const row = rows.find((r) => r.action === auditAction(spec) && r.outcome === "allowed");
      assert.ok(row, `${spec.name}: no allowed row for ${auditAction(spec)} among ${JSON.stringify(rows)}`);
      assert.ok(row.subjectDisplay !== "", `${spec.name}: the row names who acted`);
      e.clock.advance(60_000); // sign-in budgets
    }
  } finally {
    await e.server.stop();
  }
});

test("a write whose audit row cannot be written does not happen", async () => {
  const e = await envs.env("local");
  try {
    const admin = e.admin;
    await e.db.exec(`
      CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit is read-only'; END $$;
      CREATE TRIGGER refuse_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION refuse_audit();`);
    const victim = await storedUser(e, "vic");
    const usersBefore = (await e.store.listUsers()).length;
    const bindingsBefore = await e.store.listBindings();
    const attempts: [string, string, unknown][] = [
      ["POST", "/api/v1/users", { username: "ghost", password: "ghost-password-long", role: "viewer" }],
      ["PUT", `/api/v1/users/${victim.id}/role`, { role: "admin" }],
      ["POST", `/api/v1/users/${victim.id}/disable`, undefined],
      ["DELETE", `/api/v1/users/${victim.id}`, undefined],
      ["POST", "/api/v1/rbac/bindings", { subject: "group:x", role: "admin" }],
      ["PUT", "/api/v1/rbac/roles/shadow", { permissions: ["audit:read"] }],
      ["POST", "/api/v1/tokens", { name: "ghost" }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await admin.request(method, path, { body, csrf: true });
      assert.ok(r.status >= 500, `${method} ${path} -> ${r.status}`);
    }
    assert.equal((await e.store.listUsers()).length, usersBefore);
    assert.equal((await e.store.getUser(victim.id))?.enabled, true);
    assert.deepEqual(await e.store.listBindings(), bindingsBefore);
    assert.deepEqual(await e.store.listCustomRoles(), []);
    assert.deepEqual(await e.store.listTokens(), []);
    assert.deepEqual(
      await e.store.listBindings(localSubject(victim.id)),
      bindingsBefore.filter((b) => b.subject === localSubject(victim.id)),
    );
    // a sign-in whose row cannot be written leaves no session behind
    const c = browser(e.server);
    const r = await login(c, "admin", ADMIN_PW);
    assert.equal(r.status, 503);
    assert.equal(c.jar.get("__Host-svc_session") ?? "", "");
  } finally {
    await e.server.stop();
  }
});
