import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConsoleServer } from "../server.ts";
import { SqlStore } from "../store/sql-store.ts";
import { CookieClient, startConsole, TestClock } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";

let dbs: TestDatabases;
const dir = mkdtempSync(join(tmpdir(), "svc-console-rbac-"));
const passwordFile = join(dir, "pw");
const PW = "correct horse battery";
writeFileSync(passwordFile, PW);
before(async () => {
  dbs = await testDatabases();
});
after(async () => {
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

async function localConsole(defaultRole = "") {
  const { db } = await dbs.fresh();
  const yaml = `auth:\n  mode: local\n  defaultRole: "${defaultRole}"\n  local:\n    bootstrapAdmin: admin\n    bootstrapPasswordFile: ${passwordFile}\ndatabase:\n  url: pglite:memory\n`;
  const server = await startConsole(yaml, { db, clock: new TestClock() });
  await server.whenReady();
  const admin = await signedIn(server, "admin", PW);
  return { server, store: new SqlStore(db), admin };
}

async function signedIn(server: ConsoleServer, username: string, password: string): Promise<CookieClient> {
  const c = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  const r = await c.request("POST", "/api/v1/auth/login", { body: { username, password } });
  assert.equal(r.status, 200, `${username} signs in`);
  return c;
}

const w = (c: CookieClient, method: string, path: string, body?: unknown) =>
  c.request(method, path, { body, csrf: true });

async function userId(c: CookieClient, username: string): Promise<string> {
  const list = (await c.request("GET", "/api/v1/users")).body as {
    users: { id: string; username: string }[];
  };
  const u = list.users.find((x) => x.username === username);
  assert.ok(u);
  return u.id;
}

test("bindings: create, duplicate 409, unknown role and bad subject 422, delete, unknown 404; groupRoles shown", async () => {
  const { server, admin } = await localConsole();
  try {
    const made = await w(admin, "POST", "/api/v1/rbac/bindings", { subject: "group:sre", role: "operator" });
    assert.equal(made.status, 201);
    const id = (made.body as { id: string }).id;
    assert.equal(
      (await w(admin, "POST", "/api/v1/rbac/bindings", { subject: "group:sre", role: "operator" })).status,
      409,
    );
    assert.equal(
      (await w(admin, "POST", "/api/v1/rbac/bindings", { subject: "group:sre", role: "root" })).status,
      422,
    );
    assert.equal(
      (await w(admin, "POST", "/api/v1/rbac/bindings", { subject: "bob", role: "viewer" })).status,
      422,
    );
    assert.equal((await w(admin, "POST", "/api/v1/rbac/bindings", { subject: 1 })).status, 400);
    const list = await admin.request("GET", "/api/v1/rbac/bindings");
    assert.ok(
      (list.body as { bindings: { subject: string }[] }).bindings.some((b) => b.subject === "group:sre"),
    );
    assert.deepEqual((list.body as { groupRoles: object }).groupRoles, {});
    assert.equal((await w(admin, "DELETE", `/api/v1/rbac/bindings/${id}`)).status, 204);
    assert.equal((await w(admin, "DELETE", `/api/v1/rbac/bindings/${id}`)).status, 404);
  } finally {
    await server.stop();
  }
});

test("custom roles: permission names checked, built-in names refused, bound roles kept", async () => {
  const { server, admin } = await localConsole();
  try {
    assert.equal(
      (await w(admin, "PUT", "/api/v1/rbac/roles/auditor", { permissions: ["audit:read"] })).status,
      200,
    );
    assert.equal(
      (await w(admin, "PUT", "/api/v1/rbac/roles/auditor", { permissions: ["no:such"] })).status,
      422,
    );
    assert.equal((await w(admin, "PUT", "/api/v1/rbac/roles/admin", { permissions: [] })).status, 422);
    assert.equal(
      (
        await w(admin, "POST", "/api/v1/users", {
          username: "ann",
          password: "ann-password-long",
          role: "auditor",
        })
      ).status,
      201,
    );
    const ann = await signedIn(server, "ann", "ann-password-long");
    assert.equal((await ann.request("GET", "/api/v1/audit")).status, 200);
    assert.equal((await ann.request("GET", "/api/v1/users")).status, 403);
    assert.equal((await w(admin, "DELETE", "/api/v1/rbac/roles/auditor")).status, 409, "still bound");
    const roles = await admin.request("GET", "/api/v1/rbac/roles");
    assert.deepEqual(
      (roles.body as { custom: { name: string }[] }).custom.map((r) => r.name),
      ["auditor"],
    );
  } finally {
    await server.stop();
  }
});

test("indirect last-administrator guards: dropping users:manage from a role, deleting the last binding", async () => {
  const { server, admin } = await localConsole();
  try {
    assert.equal(
      (await w(admin, "PUT", "/api/v1/rbac/roles/keeper", { permissions: ["users:manage", "rbac:manage"] }))
        .status,
      200,
    );
    assert.equal(
      (
        await w(admin, "POST", "/api/v1/users", {
          username: "kim",
          password: "kim-password-long",
          role: "keeper",
        })
      ).status,
      201,
    );
    const adminId = await userId(admin, "admin");
    const kimId = await userId(admin, "kim");
    assert.equal((await w(admin, "PUT", `/api/v1/users/${adminId}/role`, { role: "viewer" })).status, 200);
    const kim = await signedIn(server, "kim", "kim-password-long");
    assert.equal(
      (await w(kim, "PUT", "/api/v1/rbac/roles/keeper", { permissions: ["rbac:manage"] })).status,
      409,
    );
    const bindings = (await kim.request("GET", "/api/v1/rbac/bindings")).body as {
      bindings: { id: string; subject: string }[];
    };
    const kimBinding = bindings.bindings.find((b) => b.subject === `local:${kimId}`);
    assert.ok(kimBinding);
    assert.equal((await w(kim, "DELETE", `/api/v1/rbac/bindings/${kimBinding.id}`)).status, 409);
    // with a second administrator, both are allowed
    assert.equal(
      (await w(kim, "POST", "/api/v1/rbac/bindings", { subject: `local:${adminId}`, role: "admin" })).status,
      201,
    );
    assert.equal(
      (await w(kim, "PUT", "/api/v1/rbac/roles/keeper", { permissions: ["rbac:manage"] })).status,
      200,
    );
  } finally {
    await server.stop();
  }
});

test("indirect guard: a binding for a user who holds users:manage only through defaultRole", async () => {
  const { server, admin } = await localConsole("admin");
  try {
    assert.equal(
      (
        await w(admin, "POST", "/api/v1/users", {
          username: "dee",
          password: "dee-password-long",
          role: "viewer",
        })
      ).status,
      201,
    );
    const deeId = await userId(admin, "dee");
    const adminId = await userId(admin, "admin");
    const list = (await admin.request("GET", "/api/v1/rbac/bindings")).body as {
      bindings: { id: string; subject: string }[];
    };
    const deeBinding = list.bindings.find((b) => b.subject === `local:${deeId}`);
    assert.ok(deeBinding);
    // without any binding, dee falls back to defaultRole admin
    assert.equal((await w(admin, "DELETE", `/api/v1/rbac/bindings/${deeBinding.id}`)).status, 204);
    assert.equal((await w(admin, "PUT", `/api/v1/users/${adminId}/role`, { role: "viewer" })).status, 200);
    const dee = await signedIn(server, "dee", "dee-password-long");
    assert.deepEqual(((await dee.request("GET", "/api/v1/auth/me")).body as { roles: string[] }).roles, [
      "admin",
    ]);
    assert.equal(
      (await w(dee, "POST", "/api/v1/rbac/bindings", { subject: `local:${deeId}`, role: "operator" })).status,
      409,
    );
  } finally {
    await server.stop();
  }
});

test("audit: newest rows with subject, subjectDisplay, outcome, remoteAddr; 503 without a database", async () => {
  const { server, admin } = await localConsole();
  const memory = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    const rows = ((await admin.request("GET", "/api/v1/audit")).body as { rows: Record<string, unknown>[] })
      .rows;
    const first = rows[0];
    assert.ok(first);
    assert.equal(first.action, "POST /api/v1/auth/login");
    assert.equal(first.outcome, "allowed");
    assert.equal(first.subjectDisplay, "admin");
    assert.equal(first.remoteAddr, "127.0.0.1");
    assert.match(String(first.subject), /^local:/);
    assert.equal((await new CookieClient(memory.httpUrl, "x").request("GET", "/api/v1/audit")).status, 503);
  } finally {
    await server.stop();
    await memory.stop();
  }
});
