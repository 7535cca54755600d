/**
 * GET /api/v1/openapi.json: a document a real OpenAPI 3.1 validator accepts, listing every route the console
 * serves (and nothing it does not), with each operation's access; and the input rules the contract enforces.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { routes } from "@svc/contract";
import type { ConsoleServer } from "../server.ts";
import { CookieClient, startConsole } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";

let dbs: TestDatabases;
let server: ConsoleServer;
let admin: CookieClient;
const dir = mkdtempSync(join(tmpdir(), "svc-console-openapi-"));
const PW = "correct horse battery";
writeFileSync(join(dir, "pw"), PW);

before(async () => {
  dbs = await testDatabases();
  const { db } = await dbs.fresh();
  const yaml = `auth:\n  mode: local\n  local:\n    bootstrapAdmin: admin\n    bootstrapPasswordFile: ${join(dir, "pw")}\ndatabase:\n  url: pglite:memory\n`;
  server = await startConsole(yaml, {
    db,
    server: { webRoot: false },
  });
  await server.whenReady();
  admin = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  const login = await admin.request("POST", "/api/v1/auth/login", {
    body: { username: "admin", password: PW },
  });
  assert.equal(login.status, 200);
});
after(async () => {
  await server.stop();
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the served document passes the OpenAPI 3.1 validator and names each operation's access", async () => {
  const res = await fetch(`${server.httpUrl}/api/v1/openapi.json`);
  assert.equal(res.status, 200);
  const doc = (await res.json()) as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string; "x-permission": string }>>;
  };
  assert.equal(doc.openapi, "3.1.0");
  await SwaggerParser.validate(structuredClone(doc) as never);
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op })),
  );
  assert.equal(ops.length, routes.length);
  const tokens = ops.find((o) => o.key === "POST /api/v1/tokens");
  assert.equal(tokens?.op["x-permission"], "tokens:manage");
  assert.equal(ops.find((o) => o.key === "GET /api/v1/fleet/matrix")?.op["x-permission"], "role");
});

test("every route the console serves is in the contract, and every contract route is served", () => {
  const toContract = (url: string) => url.replace(/:([A-Za-z]+)/g, "{$1}");
  const api = new Set(
    server.apiRoutes
      .filter((r) => !r.startsWith("HEAD ") && !r.startsWith("OPTIONS "))
      .map((r) => {
        const [m = "", u = ""] = r.split(" ");
        return `${m} ${toContract(u)}`;
      }),
  );
  const declared = new Set(routes.map((r) => `${r.method} ${r.path}`));
  assert.deepEqual([...api].filter((r) => !declared.has(r)).sort(), [], "served but not declared");
  assert.deepEqual([...declared].filter((r) => !api.has(r)).sort(), [], "declared but not served");
});

test("malformed input is refused from the contract with 400 naming the field, and changes nothing", async () => {
  const w = (method: string, path: string, body?: unknown) =>
    admin.request(method, path, { body, csrf: true });
  const before = ((await admin.request("GET", "/api/v1/tokens")).body as { tokens: unknown[] }).tokens.length;
  for (const [body, field] of [
    [{ name: "a\u0000b" }, "body.name"],
    [{ name: "lone \uD800 surrogate" }, "body.name"],
    [{ name: 5 }, "body.name"],
    [{ name: "ok", extra: true }, "body"],
    [{ name: "ok", expiresAt: "tomorrow" }, "body.expiresAt"],
  ] as const) {
    const res = await w("POST", "/api/v1/tokens", body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const err = (res.body as { error: { code: string; message: string } }).error;
    assert.equal(err.code, "invalid_input");
    assert.ok(err.message.includes(field), `${err.message} names ${field}`);
  }
  const after = ((await admin.request("GET", "/api/v1/tokens")).body as { tokens: unknown[] }).tokens.length;
  assert.equal(after, before, "no token minted by a refused request");

  const users = await w("POST", "/api/v1/users", {
    username: "nul\u0000user",
    password: "x".repeat(20),
    role: "viewer",
  });
  assert.equal(users.status, 400);
  const list = (await admin.request("GET", "/api/v1/users")).body as { users: { username: string }[] };
  assert.deepEqual(
    list.users.map((u) => u.username),
    ["admin"],
  );

  const query = await admin.request("GET", "/api/v1/fleet/matrix?protocol=smtp");
  assert.equal(query.status, 400);
  assert.match((query.body as { error: { message: string } }).error.message, /query\.protocol/);
});

test("a path parameter that cannot name an object answers 404, checked after the permission", async () => {
  const res = await admin.request("PUT", "/api/v1/users/not-a-uuid/role", {
    body: { role: "viewer" },
    csrf: true,
  });
  assert.equal(res.status, 404);
  const anon = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  assert.equal(
    (await anon.request("PUT", "/api/v1/users/not-a-uuid/role", { body: { role: "viewer" } })).status,
    401,
  );
});
