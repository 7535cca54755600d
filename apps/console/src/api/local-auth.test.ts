import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConsoleServer } from "../server.ts";
import type { Db } from "../store/db.ts";
import { SqlStore } from "../store/sql-store.ts";
import { CookieClient, startConsole, TestClock } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";

// Each test gets a fresh schema (and so an empty users table): on the test PostgreSQL, else in one PGlite.
let dbs: TestDatabases;
const dir = mkdtempSync(join(tmpdir(), "svc-console-auth-"));
const passwordFile = join(dir, "admin-password");
const ADMIN_PASSWORD = "correct horse battery";
writeFileSync(passwordFile, `${ADMIN_PASSWORD}\n`);
before(async () => {
  dbs = await testDatabases();
});
after(async () => {
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freshDb(): Promise<Db> {
  return (await dbs.fresh()).db;
}

const HOUR = 3_600_000;
interface YamlParts {
  session?: string;
  defaultRole?: string;
  extra?: string;
}
const localYaml = (p: YamlParts = {}) => `
auth:
  mode: local
  defaultRole: "${p.defaultRole ?? ""}"
  local:
    bootstrapAdmin: admin
    bootstrapPasswordFile: ${passwordFile}
  session:
    ${p.session ?? "{}"}
database:
  url: pglite:memory
${p.extra ?? ""}
`;

async function localConsole(parts: YamlParts = {}, clock = new TestClock()) {
  const db = await freshDb();
  const server = await startConsole(localYaml(parts), { db, clock });
  await server.whenReady();
  return { server, db, clock, store: new SqlStore(db) };
}

function client(server: ConsoleServer, cookie = "__Host-svc_session"): CookieClient {
  const csrf = cookie.endsWith("_session") ? `${cookie.slice(0, -8)}_csrf` : `${cookie}_csrf`;
  return new CookieClient(server.httpUrl, csrf);
}

/** Signs in as a fresh browser would (no cookies from an earlier sign-in). */
const signIn = (c: CookieClient, username: string, password: string, headers?: Record<string, string>) => {
  c.jar.clear();
  return c.request("POST", "/api/v1/auth/login", { body: { username, password }, headers });
};

test("sign-in over a real socket: cookies with the spec's attributes, me, CSRF on logout, audit", async () => {
  const { server, store } = await localConsole();
  try {
    const c = client(server);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
    assert.equal((await c.request("GET", "/api/v1/config")).status, 401);
    assert.equal((await signIn(c, "admin", "wrong password!!")).status, 401);
    assert.equal((await signIn(c, "nobody", "wrong password!!")).status, 401);
    assert.equal((await signIn(c, "", "")).status, 400);
    assert.equal((await c.request("POST", "/api/v1/auth/login", { body: { username: 1 } })).status, 400);

    const ok = await signIn(c, "admin", ADMIN_PASSWORD);
    assert.equal(ok.status, 200);
    assert.deepEqual((ok.body as { roles: string[] }).roles, ["admin"]);
    const session = c.lastSetCookie.find((l) => l.startsWith("__Host-svc_session="));
    const csrf = c.lastSetCookie.find((l) => l.startsWith("__Host-svc_csrf="));
    assert.ok(session && csrf);
    assert.match(session, /; Path=\/; Max-Age=43200; SameSite=Lax; HttpOnly; Secure$/);
    assert.match(csrf, /; Path=\/; Max-Age=43200; SameSite=Lax; Secure$/);
    assert.doesNotMatch(session, /Domain=/i);

    const me = await c.request("GET", "/api/v1/auth/me");
    assert.equal(me.status, 200);
    assert.match((me.body as { subject: string }).subject, /^local:[0-9a-f-]{36}$/);
    assert.equal((me.body as { displayName: string }).displayName, "admin");
    assert.equal((me.body as { via: string }).via, "session");
    const cfg = await c.request("GET", "/api/v1/config");
    assert.equal((cfg.body as { auth: { loginPath: string } }).auth.loginPath, "/api/v1/auth/login");
    assert.equal((cfg.body as { backends: { databaseKind: string } }).backends.databaseKind, dbs.kind);

    // a state-changing request without or with a wrong CSRF header is refused and changes nothing
    assert.equal((await c.request("POST", "/api/v1/auth/logout")).status, 403);
    assert.equal((await c.request("POST", "/api/v1/auth/logout", { csrf: "not-it" })).status, 403);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 200);
    const out = await c.request("POST", "/api/v1/auth/logout", { csrf: true });
    assert.equal(out.status, 204);
    assert.equal(c.jar.size, 0, "logout clears both cookies");
    // idempotent
    assert.equal((await c.request("POST", "/api/v1/auth/logout")).status, 204);

    const audit = await store.listAudit(200);
    assert.deepEqual(
      audit.map((r) => [
        r.action,
        r.outcome,
        r.subject === null ? null : r.subject.slice(0, 6),
        r.remoteAddr,
      ]),
      [
        ["POST /api/v1/auth/logout", "allowed", "local:", "127.0.0.1"],
        ["POST /api/v1/auth/login", "allowed", "local:", "127.0.0.1"],
        ["POST /api/v1/auth/login", "denied", null, "127.0.0.1"],
        ["POST /api/v1/auth/login", "denied", null, "127.0.0.1"],
      ],
    );
    assert.equal(audit[1]?.subjectDisplay, "admin");
  } finally {
    await server.stop();
  }
});

test("the session cookie presented after logout is refused", async () => {
  const { server } = await localConsole();
  try {
    const c = client(server);
    await signIn(c, "admin", ADMIN_PASSWORD);
    const stale = new Map(c.jar);
    await c.request("POST", "/api/v1/auth/logout", { csrf: true });
    for (const [k, v] of stale) c.jar.set(k, v);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
  } finally {
    await server.stop();
  }
});

test("sessions end at the absolute bound and at the sliding idle bound, and are purged", async () => {
  const { server, store, clock } = await localConsole();
  try {
    // sliding: a request every 50 minutes keeps the session, until the 12 h absolute bound
    const a = client(server);
    await signIn(a, "admin", ADMIN_PASSWORD);
    for (let i = 0; i < 14; i++) {
      clock.advance(50 * 60_000);
      assert.equal((await a.request("GET", "/api/v1/auth/me")).status, 200, `request ${i}`);
    }
    clock.advance(41 * 60_000); // 14*50 + 41 = 741 min > 720
    const gone = await a.request("GET", "/api/v1/auth/me");
    assert.equal(gone.status, 401);
    assert.ok(!a.jar.has("__Host-svc_session"), "the dead session's cookie is cleared");

    // idle: 1 h without a request ends it, within the 15 s stamp interval (idleBound)
    const b = client(server);
    await signIn(b, "admin", ADMIN_PASSWORD);
    clock.advance(HOUR + 15_000);
    assert.equal((await b.request("GET", "/api/v1/auth/me")).status, 401);

    // purge deletes sessions nobody presents again
    const c = client(server);
    await signIn(c, "admin", ADMIN_PASSWORD);
    const before = await store.listAudit(1);
    assert.ok(before.length === 1);
    clock.advance(HOUR + 15_000);
    assert.equal(await server.purgeSessions(), 1);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
  } finally {
    await server.stop();
  }
});

test("idleTimeout 0 disables the idle bound; a plain-HTTP cookie name goes without Secure", async () => {
  const { server, clock } = await localConsole({
    session: "idleTimeout: 0\n    secure: false\n    cookieName: svc_session",
  });
  try {
    const c = client(server, "svc_session");
    await signIn(c, "admin", ADMIN_PASSWORD);
    const line = c.lastSetCookie.find((l) => l.startsWith("svc_session="));
    assert.match(line ?? "", /; HttpOnly$/);
    assert.ok(c.jar.has("svc_csrf"));
    clock.advance(11 * HOUR);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 200);
    clock.advance(HOUR);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
  } finally {
    await server.stop();
  }
});

test("sign-in budget: per username per minute, right or wrong, 429 until the minute ends", async () => {
  const { server, clock } = await localConsole({ extra: "rateLimit:\n  loginPerMinute: 2" });
  try {
    const c = client(server);
    assert.equal((await signIn(c, "admin", "wrong password!!")).status, 401);
    assert.equal((await signIn(c, "admin", ADMIN_PASSWORD)).status, 200);
    const limited = await signIn(c, "admin", ADMIN_PASSWORD);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "60");
    clock.advance(30_000);
    assert.equal(
      (await signIn(c, "ADMIN", ADMIN_PASSWORD)).status,
      429,
      "usernames are budgeted case-insensitively",
    );
    clock.advance(30_000);
    assert.equal((await signIn(c, "admin", ADMIN_PASSWORD)).status, 200, "a new minute, a new budget");
    const m = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    assert.match(m, /^svc_console_rate_limited_total\{limit="login-username"\} 2$/m);
  } finally {
    await server.stop();
  }
});

test("sign-in budget per address is 20x, IPv6 per /64, via trusted X-Forwarded-For", async () => {
  const { server } = await localConsole({
    extra: "rateLimit:\n  loginPerMinute: 1\nclientAddress:\n  trustedProxyCIDRs: [127.0.0.1/32]",
  });
  try {
    const c = client(server);
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    for (let i = 0; i < 20; i++) {
      const ip = `2001:db8:0:1::${(i + 1).toString(16)}`;
      assert.equal((await signIn(c, `user${i}`, "wrong password!!", from(ip))).status, 401, `attempt ${i}`);
    }
    assert.equal((await signIn(c, "admin", ADMIN_PASSWORD, from("2001:db8:0:1:ffff::1"))).status, 429);
    // another /64 and another IPv4 client still have their budgets
    assert.equal((await signIn(c, "admin", ADMIN_PASSWORD, from("2001:db8:0:2::1"))).status, 200);
    assert.equal((await signIn(c, "user0x", "wrong password!!", from("198.51.100.7"))).status, 401);
  } finally {
    await server.stop();
  }
});

test("bootstrap admin only while the users table is empty; old hashes are upgraded at sign-in", async () => {
  const db = await freshDb();
  const store = new SqlStore(db);
  const { migrate } = await import("../store/migrations.ts");
  await migrate(db);
  const old = await import("@node-rs/argon2").then((a) =>
    a.hash("an older password", { memoryCost: 4096, timeCost: 1 }),
  );
  const u = await store.createUser({ username: "olduser", passwordHash: old, role: "viewer" }, 1);
  const server = await startConsole(localYaml(), { db });
  try {
    await server.whenReady();
    assert.equal(await store.getUserByUsername("admin"), undefined, "users existed: no bootstrap admin");
    const c = client(server);
    assert.equal((await signIn(c, "olduser", "an older password")).status, 200);
    const after = await store.getUser(u.id);
    assert.match(after?.passwordHash ?? "", /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(after?.passwordChangedAt, 1, "a rehash is not a password change");
    assert.equal(
      (await signIn(new CookieClient(server.httpUrl, "x"), "olduser", "an older password")).status,
      200,
    );
  } finally {
    await server.stop();
  }
});
