/**
 * Every write route (non-GET) the contract declares, called as the administrator with a valid request, leaves an
 * `allowed` audit row naming it. The list comes from the contract: a new write route without an example below, or
 * without its audit row, fails here. And a write whose audit row cannot be written does not happen.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { pathOf, type RouteSpec, routes, successStatuses } from "@svc/contract";
import { hashPassword } from "../auth/password.ts";
import { localSubject } from "../store/sql-store.ts";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import type { CookieClient } from "../testing/harness.ts";
import { ADMIN_PW, browser, type LocalEnv, type LocalEnvs, localEnvs, login } from "../testing/local-env.ts";
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

/** One example call: who calls, with which path parameters and body. */
interface Example {
  client?: CookieClient;
  params?: Record<string, string>;
  body?: unknown;
}

/** Makes a valid example of a route; may prepare state through the store (which writes no audit row). */
type ExampleMaker = (e: LocalEnv) => Promise<Example>;

async function storedUser(e: LocalEnv, username: string, password = `${username}-password-long`) {
  const u = await e.store.createUser(
    { username, passwordHash: await hashPassword(password), role: "viewer" },
    1,
  );
  return { id: u.id, password };
}

async function storedToken(e: LocalEnv, revoked: boolean): Promise<string> {
  const id = randomUUID();
  await e.store.createToken({
    id,
    name: `t-${id.slice(0, 8)}`,
    owner: "local:someone",
    mintedBy: "local:someone",
    secretHash: randomUUID(),
    createdAt: e.clock.t,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: revoked ? e.clock.t : null,
  });
  return id;
}

async function signedIn(e: LocalEnv, username: string, password: string): Promise<CookieClient> {
  const c = browser(e.server);
  assert.equal((await login(c, username, password)).status, 200);
  return c;
}

/** A valid example per write route, by operation name. */
export const EXAMPLES: Readonly<Record<string, ExampleMaker>> = {
  logout: async (e) => ({ client: await signedIn(e, "admin", ADMIN_PW) }),
  login: async (e) => ({ client: browser(e.server), body: { username: "admin", password: ADMIN_PW } }),
  changePassword: async (e) => {
    const u = await storedUser(e, "pat");
    const client = await signedIn(e, "pat", u.password);
    return { client, body: { currentPassword: u.password, newPassword: "another-long-password" } };
  },
  createBinding: async () => ({ body: { subject: "group:ops", role: "viewer" } }),
  deleteBinding: async (e) => {
    const b = await e.store.userAdmin((tx) => tx.addBinding("group:gone", "viewer", 1));
    return { params: { id: b.id } };
  },
  putRole: async () => ({ params: { name: "auditors" }, body: { permissions: ["audit:read"] } }),
  deleteRole: async (e) => {
    await e.store.putCustomRole({ name: "doomed", permissions: [] }, 1);
    return { params: { name: "doomed" } };
  },
  createUser: async () => ({
    body: { username: "newbie", password: "newbie-password-long", role: "viewer" },
  }),
  setUserRole: async (e) => ({ params: { id: (await storedUser(e, "sam")).id }, body: { role: "operator" } }),
  disableUser: async (e) => ({ params: { id: (await storedUser(e, "dee")).id } }),
  enableUser: async (e) => {
    const { id } = await storedUser(e, "eve");
    await e.store.userAdmin((tx) => tx.setEnabled(id, false, 1));
    return { params: { id } };
  },
  deleteUser: async (e) => ({ params: { id: (await storedUser(e, "del")).id } }),
  resetUserPassword: async (e) => ({
    params: { id: (await storedUser(e, "ray")).id },
    body: { password: "a-brand-new-password" },
  }),
  mintToken: async () => ({ body: { name: "ci" } }),
  revokeToken: async (e) => ({ params: { id: await storedToken(e, false) } }),
  deleteToken: async (e) => ({ params: { id: await storedToken(e, true) } }),
  runFleetCheck: async () => ({ body: { source: "a", destination: "b" } }),
};

/** The contract's write routes. */
export const writeRoutes: readonly RouteSpec[] = routes.filter((r) => r.method !== "GET");

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
