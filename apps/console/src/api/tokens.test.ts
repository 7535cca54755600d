import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hashTokenSecret } from "../auth/authenticate.ts";
import { SqlStore } from "../store/sql-store.ts";
import { CookieClient, startConsole, TestClock } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";
import type { MintedToken, TokenView } from "../tokens/token-admin.ts";

let dbs: TestDatabases;
const dir = mkdtempSync(join(tmpdir(), "svc-console-tokens-"));
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

const HOUR = 3_600_000;

async function env(defaultRole = "") {
  const { db } = await dbs.fresh();
  const clock = new TestClock();
  const yaml = `auth:\n  mode: local\n  defaultRole: "${defaultRole}"\n  local:\n    bootstrapAdmin: admin\n    bootstrapPasswordFile: ${passwordFile}\ndatabase:\n  url: pglite:memory\n`;
  const server = await startConsole(yaml, { db, clock });
  await server.whenReady();
  const admin = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  assert.equal(
    (await admin.request("POST", "/api/v1/auth/login", { body: { username: "admin", password: PW } })).status,
    200,
  );
  const w = (method: string, path: string, body?: unknown) =>
    admin.request(method, path, { body, csrf: true });
  const bearer = (secret: string, method: string, path: string, body?: unknown) =>
    new CookieClient(server.httpUrl, "x").request(method, path, {
      body,
      headers: { authorization: `Bearer ${secret}` },
    });
  return { server, store: new SqlStore(db), clock, admin, w, bearer };
}

test("mint shows the secret once and stores only its hash; list, last use, revoke, delete", async () => {
  const e = await env();
  try {
    const r = await e.w("POST", "/api/v1/tokens", { name: " ci " });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const minted = r.body as MintedToken;
    assert.match(minted.token, /^svct_[A-Za-z0-9_-]{43}$/);
    assert.equal(minted.name, "ci");
    assert.equal(minted.state, "active");
    assert.equal(minted.expiresAt, null);
    assert.match(minted.owner, /^local:/);
    const stored = await e.store.getToken(minted.id);
    assert.equal(stored?.secretHash, hashTokenSecret(minted.token));
    assert.ok(!JSON.stringify(stored).includes(minted.token), "the secret itself is never stored");

    const list = (await e.admin.request("GET", "/api/v1/tokens")).body as { tokens: TokenView[] };
    assert.equal(list.tokens.length, 1);
    assert.equal(list.tokens[0]?.lastUsedAt, null);
    assert.ok(!JSON.stringify(list).includes(minted.token), "the value cannot be read back");
    assert.ok(!JSON.stringify(list).includes(hashTokenSecret(minted.token)));

    // defaultRole is empty: the token authenticates but holds no role -> 403 on every permission route
    const me = await e.bearer(minted.token, "GET", "/api/v1/auth/me");
    assert.equal(me.status, 200);
    assert.deepEqual((me.body as { roles: string[] }).roles, []);
    for (const path of ["/api/v1/tokens", "/api/v1/audit", "/api/v1/rbac/bindings", "/api/v1/users"])
      assert.equal((await e.bearer(minted.token, "GET", path)).status, 403, path);
    const used = (await e.admin.request("GET", "/api/v1/tokens")).body as { tokens: TokenView[] };
    assert.equal(used.tokens[0]?.lastUsedAt, new Date(e.clock.t).toISOString());

    assert.equal((await e.w("DELETE", `/api/v1/tokens/${minted.id}`)).status, 409, "active: revoke first");
    const rev = await e.w("POST", `/api/v1/tokens/${minted.id}/revoke`);
    assert.equal(rev.status, 200);
    assert.equal((rev.body as TokenView).state, "revoked");
    assert.equal((await e.w("POST", `/api/v1/tokens/${minted.id}/revoke`)).status, 409);
    assert.equal((await e.bearer(minted.token, "GET", "/api/v1/auth/me")).status, 401);
    assert.equal((await e.w("DELETE", `/api/v1/tokens/${minted.id}`)).status, 204);
    assert.equal((await e.w("DELETE", `/api/v1/tokens/${minted.id}`)).status, 404);
    assert.equal((await e.w("POST", "/api/v1/tokens/nope/revoke")).status, 404);

    const audit = (await e.admin.request("GET", "/api/v1/audit")).body as { rows: { action: string }[] };
    const actions = audit.rows.map((x) => x.action);
    for (const a of ["POST /api/v1/tokens", "POST /api/v1/tokens/:id/revoke", "DELETE /api/v1/tokens/:id"])
      assert.ok(actions.includes(a), a);
  } finally {
    await e.server.stop();
  }
});

test("expiry turns a token spent: 401, revoke 409, delete allowed; bad bodies 400/422", async () => {
  const e = await env("viewer");
  try {
    const expiresAt = new Date(e.clock.t + HOUR / 2).toISOString();
    const minted = (await e.w("POST", "/api/v1/tokens", { name: "short", expiresAt })).body as MintedToken;
    assert.equal(minted.expiresAt, expiresAt);
    assert.equal((await e.bearer(minted.token, "GET", "/api/v1/auth/me")).status, 200);
    e.clock.advance(HOUR / 2); // within the admin session's idle bound
    const list = (await e.admin.request("GET", "/api/v1/tokens")).body as { tokens: TokenView[] };
    assert.equal(list.tokens[0]?.state, "spent");
    assert.equal((await e.bearer(minted.token, "GET", "/api/v1/auth/me")).status, 401);
    assert.equal((await e.w("POST", `/api/v1/tokens/${minted.id}/revoke`)).status, 409);
    assert.equal((await e.w("DELETE", `/api/v1/tokens/${minted.id}`)).status, 204);

    const past = new Date(e.clock.t - 1000).toISOString();
    assert.equal((await e.w("POST", "/api/v1/tokens", { name: "x", expiresAt: past })).status, 422);
    assert.equal((await e.w("POST", "/api/v1/tokens", { name: "   " })).status, 422);
    assert.equal((await e.w("POST", "/api/v1/tokens", { name: "x", expiresAt: "tomorrow" })).status, 400);
    assert.equal((await e.w("POST", "/api/v1/tokens", { name: 5 })).status, 400);
    assert.equal((await e.w("POST", "/api/v1/tokens", { name: "x", owner: "local:y" })).status, 400);
    assert.equal(
      (await e.admin.request("POST", "/api/v1/tokens", { body: { name: "no csrf" } })).status,
      403,
    );
    assert.equal(((await e.admin.request("GET", "/api/v1/tokens")).body as { tokens: [] }).tokens.length, 0);
  } finally {
    await e.server.stop();
  }
});

test("a token holds exactly defaultRole whoever minted it, and cannot mint tokens", async () => {
  const e = await env("admin");
  try {
    const minted = (await e.w("POST", "/api/v1/tokens", { name: "ops" })).body as MintedToken;
    const me = await e.bearer(minted.token, "GET", "/api/v1/auth/me");
    assert.deepEqual((me.body as { roles: string[] }).roles, ["admin"]);
    assert.equal((await e.bearer(minted.token, "GET", "/api/v1/tokens")).status, 200);
    assert.equal((await e.bearer(minted.token, "POST", "/api/v1/tokens", { name: "child" })).status, 403);
  } finally {
    await e.server.stop();
  }
});

test("viewer, operator and alert-editor lack tokens:manage", async () => {
  const e = await env();
  try {
    for (const role of ["viewer", "operator", "alert-editor"]) {
      const username = `u-${role}`;
      const password = `${username}-password`;
      assert.equal((await e.w("POST", "/api/v1/users", { username, password, role })).status, 201);
      const c = new CookieClient(e.server.httpUrl, "__Host-svc_csrf");
      assert.equal(
        (await c.request("POST", "/api/v1/auth/login", { body: { username, password } })).status,
        200,
      );
      assert.equal((await c.request("GET", "/api/v1/tokens")).status, 403, role);
      const mint = await c.request("POST", "/api/v1/tokens", { body: { name: "x" }, csrf: true });
      assert.equal(mint.status, 403, role);
    }
  } finally {
    await e.server.stop();
  }
});

test("bearer: subject token:<id>, no CSRF needed, unknown and revoked secrets 401", async () => {
  const e = await env("operator");
  try {
    const base = {
      owner: "local:x",
      mintedBy: "local:x",
      createdAt: e.clock.t,
      lastUsedAt: null,
      expiresAt: null,
    };
    await e.store.createToken({
      ...base,
      id: "t1",
      name: "ci",
      secretHash: hashTokenSecret("s1"),
      revokedAt: null,
    });
    const old = { ...base, id: "t2", name: "old", secretHash: hashTokenSecret("s2"), revokedAt: e.clock.t };
    await e.store.createToken(old);
    const me = await e.bearer("s1", "GET", "/api/v1/auth/me");
    assert.equal((me.body as { subject: string }).subject, "token:t1");
    assert.deepEqual((me.body as { roles: string[] }).roles, ["operator"]);
    // bearer requests carry no ambient credential: no CSRF needed
    assert.equal((await e.bearer("s1", "POST", "/api/v1/auth/logout")).status, 204);
    assert.equal((await e.bearer("s2", "GET", "/api/v1/auth/me")).status, 401);
    assert.equal((await e.bearer("nope", "GET", "/api/v1/auth/me")).status, 401);
  } finally {
    await e.server.stop();
  }
});
