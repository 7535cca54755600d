import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CookieClient, startConsole, TestClock } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";

let dbs: TestDatabases;
const dir = mkdtempSync(join(tmpdir(), "svc-console-restart-"));
const passwordFile = join(dir, "admin-password");
const ADMIN_PASSWORD = "correct horse battery";
writeFileSync(passwordFile, ADMIN_PASSWORD);
before(async () => {
  dbs = await testDatabases();
});
after(async () => {
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

const yaml = `auth:
  mode: local
  defaultRole: viewer
  local: { bootstrapAdmin: admin, bootstrapPasswordFile: ${passwordFile} }
database: { url: pglite:memory }
`;

test("a console restart keeps users, sessions, tokens, bindings and audit (same database)", async () => {
  const { db: db1, schema } = await dbs.fresh();
  const clock = new TestClock();
  let server = await startConsole(yaml, { db: db1, clock });
  await server.whenReady();
  const c = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  const signedIn = await c.request("POST", "/api/v1/auth/login", {
    body: { username: "admin", password: ADMIN_PASSWORD },
  });
  assert.equal(signedIn.status, 200);
  const minted = await c.request("POST", "/api/v1/tokens", { body: { name: "ci" }, csrf: true });
  assert.equal(minted.status, 201);
  const secret = (minted.body as { token: string }).token;
  const bound = await c.request("POST", "/api/v1/rbac/bindings", {
    body: { subject: "group:ops", role: "operator" },
    csrf: true,
  });
  assert.equal(bound.status, 201);
  await server.stop();
  // the same schema (the "disk"), reopened: the first console closed its Db
  server = await startConsole(yaml, { db: await dbs.reopen(schema), clock });
  try {
    await server.whenReady();
    const again = new CookieClient(server.httpUrl, "__Host-svc_csrf");
    for (const [k, v] of c.jar) again.jar.set(k, v);
    assert.equal((await again.request("GET", "/api/v1/auth/me")).status, 200);
    const me = await again.request("GET", "/api/v1/auth/me", {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(me.status, 200, "the token still authenticates");
    assert.deepEqual((me.body as { roles: string[] }).roles, ["viewer"]);
    const tokens = (await again.request("GET", "/api/v1/tokens")).body as { tokens: { name: string }[] };
    assert.deepEqual(
      tokens.tokens.map((t) => t.name),
      ["ci"],
    );
    const bindings = (await again.request("GET", "/api/v1/rbac/bindings")).body as {
      bindings: { subject: string; role: string }[];
    };
    assert.ok(bindings.bindings.some((b) => b.subject === "group:ops" && b.role === "operator"));
    const audit = (await again.request("GET", "/api/v1/audit")).body as { rows: { action: string }[] };
    const actions = audit.rows.map((r) => r.action);
    assert.ok(actions.includes("POST /api/v1/auth/login"));
    assert.ok(actions.includes("POST /api/v1/tokens"));
  } finally {
    await server.stop();
  }
});
