import assert from "node:assert/strict";
import { test } from "node:test";
import { NewerSchemaError } from "./store/migrations.ts";
import { openPostgres } from "./store/postgres.ts";
import { CookieClient, startConsole } from "./testing/harness.ts";

test("in-memory anonymous console: probes, metrics, config, me, logout, unknown route", async () => {
  const server = await startConsole("");
  try {
    const c = new CookieClient(server.httpUrl, "__Host-svc_csrf");
    for (const base of [server.httpUrl, server.metricsUrl]) {
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const m = await fetch(`${base}/metrics`);
      assert.match(await m.text(), /^svc_console_store_ready 1$/m);
    }
    const cfg = await c.request("GET", "/api/v1/config");
    assert.equal(cfg.status, 200);
    assert.deepEqual((cfg.body as { auth: object }).auth, {
      mode: "anonymous",
      anonymousBanner: true,
      anonymousRole: "viewer",
      loginPath: null,
      oidcStartPath: null,
      csrfCookie: "__Host-svc_csrf",
      csrfHeader: "x-csrf-token",
      passwordMinLength: 12,
      sessionTtlSeconds: 43200,
      sessionIdleTimeoutSeconds: 3600,
    });
    assert.equal((cfg.body as { backends: { database: boolean } }).backends.database, false);
    const me = await c.request("GET", "/api/v1/auth/me");
    assert.equal(me.status, 200);
    assert.deepEqual((me.body as { roles: string[] }).roles, ["viewer"]);
    assert.equal((me.body as { via: string }).via, "anonymous");
    for (let i = 0; i < 2; i++) {
      const out = await c.request("POST", "/api/v1/auth/logout");
      assert.equal(out.status, 204);
      assert.ok(c.lastSetCookie.some((l) => l.startsWith("__Host-svc_session=;") && /Max-Age=0/.test(l)));
      assert.ok(c.lastSetCookie.some((l) => l.startsWith("__Host-svc_csrf=;") && /Max-Age=0/.test(l)));
    }
    // no sign-in route outside local mode; unknown routes answer the JSON error shape
    assert.equal(
      (await c.request("POST", "/api/v1/auth/login", { body: { username: "a", password: "b" } })).status,
      404,
    );
    const nf = await c.request("GET", "/api/v1/nope");
    assert.equal(nf.status, 404);
    assert.deepEqual(nf.body, { error: { code: "not_found", message: "not found" } });
  } finally {
    await server.stop();
  }
});

test("header mode: identity only from a trusted TCP peer; groupRoles; CSRF double-submit on writes", async () => {
  const trusted = await startConsole(
    "auth:\n  mode: header\n  header:\n    trustedProxyCIDRs: [127.0.0.0/8]\n  groupRoles:\n    sre: operator\n",
  );
  const untrusted = await startConsole(
    "auth:\n  mode: header\n  header:\n    trustedProxyCIDRs: [10.0.0.0/8]\n",
  );
  try {
    const c = new CookieClient(trusted.httpUrl, "__Host-svc_csrf");
    const h = { "x-remote-user": "alice", "x-remote-groups": "sre, dev" };
    const me = await c.request("GET", "/api/v1/auth/me", { headers: h });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, {
      subject: "header:alice",
      displayName: "alice",
      groups: ["sre", "dev"],
      roles: ["operator"],
      permissions: (me.body as { permissions: string[] }).permissions,
      via: "header",
    });
    assert.ok(c.jar.get("__Host-svc_csrf"), "a CSRF cookie is issued on a safe request");
    assert.equal((await c.request("POST", "/api/v1/auth/logout", { headers: h })).status, 403);
    assert.equal((await c.request("POST", "/api/v1/auth/logout", { headers: h, csrf: "wrong" })).status, 403);
    assert.equal((await c.request("POST", "/api/v1/auth/logout", { headers: h, csrf: true })).status, 204);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
    const u = new CookieClient(untrusted.httpUrl, "__Host-svc_csrf");
    assert.equal((await u.request("GET", "/api/v1/auth/me", { headers: h })).status, 401);
    assert.equal((await u.request("GET", "/api/v1/config", { headers: h })).status, 401);
  } finally {
    await trusted.stop();
    await untrusted.stop();
  }
});

test("readyz is 503 while the database is unreachable; healthz stays 200", async () => {
  // port 1 on loopback: nothing listens, connections are refused
  const db = openPostgres({ url: "postgres://postgres@127.0.0.1:1/test", connectTimeoutMs: 500 });
  const server = await startConsole("database:\n  url: postgres://postgres@127.0.0.1:1/test\n", { db });
  try {
    assert.equal((await fetch(`${server.metricsUrl}/readyz`)).status, 503);
    assert.equal((await fetch(`${server.httpUrl}/readyz`)).status, 503);
    assert.equal((await fetch(`${server.metricsUrl}/healthz`)).status, 200);
    assert.match(await (await fetch(`${server.metricsUrl}/metrics`)).text(), /^svc_console_store_ready 0$/m);
  } finally {
    await server.stop();
  }
});

test("a database migrated by a newer console is refused", async (t) => {
  const { pgliteDb, startPglite } = await import("./store/pglite.ts");
  const instance = await startPglite("memory");
  t.after(() => instance.close());
  await instance.exec(
    "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL); INSERT INTO schema_migrations VALUES (99, 'future', 0)",
  );
  const server = await startConsole("database:\n  url: pglite:memory\n", {
    db: await pgliteDb(instance, { ownsInstance: false }),
  });
  try {
    await assert.rejects(server.whenReady(), (e: unknown) => e instanceof NewerSchemaError);
    assert.equal((await fetch(`${server.metricsUrl}/readyz`)).status, 503);
  } finally {
    await server.stop();
  }
});
