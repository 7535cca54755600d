/**
 * Every write route (non-GET) the contract declares, called as the administrator with a valid request, leaves an
 * `allowed` audit row naming it. The list comes from the contract: a new write route without an example below, or
 * without its audit row, fails here. And a write whose audit row cannot be written does not happen: every write route,
 * with the audit table refusing inserts, answers 5xx, changes no stored row and sends no probe or webhook.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { pathOf, type RouteSpec, successStatuses, WEBHOOK_EXAMPLE } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { localSubject } from "../store/sql-store.ts";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import { ADMIN_PW, browser, type LocalEnv, type LocalEnvs, localEnvs, login } from "../testing/local-env.ts";
import { startWebhookReceiver } from "../testing/webhook-receiver.ts";
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
      const probes = controller.diagnostics();
      const res = await call(e, spec, ex);
      if (spec.name === "runFleetCheck")
        assert.equal(controller.diagnostics(), probes + 1, "the check reached the controller");
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

/**
 * Every row of every table but the audit log, as sorted JSON text per table: what a refused write must not change
 * (a session's sliding idle stamp moves with any request, so it is left out).
 */
async function stored(db: Db): Promise<Record<string, string[]>> {
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'audit'
     ORDER BY table_name`,
  );
  const out: Record<string, string[]> = {};
  for (const { name } of tables) {
    const rows = await db.query<{ row: unknown }>(
      `SELECT to_jsonb(t) - 'last_seen_at' AS row FROM "${name}" t`,
    );
    out[name] = rows.map((r) => JSON.stringify(r.row)).sort();
  }
  return out;
}

test("every write route: when its audit row cannot be written it answers 5xx, stores nothing and sends nothing", async () => {
  const receiver = await startWebhookReceiver();
  const e = await envs.env("local", `controller:\n  url: ${controller.url}\n`);
  const refuse = async (on: boolean) =>
    e.db.exec(
      on
        ? `CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN RAISE EXCEPTION 'audit is read-only'; END $$;
           CREATE TRIGGER refuse_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION refuse_audit();`
        : "DROP TRIGGER refuse_audit ON audit;",
    );
  try {
    const examples: typeof EXAMPLES = {
      ...EXAMPLES,
      // the webhook test send goes to a receiver that counts what reaches it
      testWebhook: async (env) => {
        const r = await env.admin.request("POST", "/api/v1/webhooks", {
          body: { ...WEBHOOK_EXAMPLE, url: receiver.url },
          csrf: true,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        return { params: { id: (r.body as { id: string }).id } };
      },
    };
    for (const spec of writeRoutes) {
      const make = examples[spec.name];
      assert.ok(make, `${spec.name}: no example`);
      const ex = await make(e);
      const before = await stored(e.db);
      const probes = controller.diagnostics();
      const deliveries = receiver.received.length;
      await refuse(true);
      let res: Awaited<ReturnType<typeof call>>;
      try {
        res = await call(e, spec, ex);
      } finally {
        await refuse(false);
      }
      assert.ok(res.status >= 500, `${spec.name}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.deepEqual(await stored(e.db), before, `${spec.name}: stored something without its audit row`);
      assert.equal(controller.diagnostics(), probes, `${spec.name}: asked the controller to probe`);
      assert.equal(receiver.received.length, deliveries, `${spec.name}: sent a webhook`);
      e.clock.advance(60_000); // sign-in budgets
    }
  } finally {
    await e.server.stop();
    await receiver.close();
  }
});
