import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConsoleServer } from "../server.ts";
import { CookieClient, startConsole, TestClock } from "../testing/harness.ts";
import { followRedirects, TestIdp } from "../testing/oidc-idp.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";

// The console's config must name an https issuer; the test's provider is plain http on loopback, so servers are
// built with the test-only `unsafeOidcTestIssuer` override. The redirect URL is never fetched: the test browser
// stops there and replays the query on the console's real address.
const REDIRECT = "http://127.0.0.1:9/api/v1/auth/oidc/callback";
const dir = mkdtempSync(join(tmpdir(), "svc-console-oidc-"));
const secretFile = join(dir, "client-secret");
let dbs: TestDatabases;
let idp: TestIdp;
before(async () => {
  dbs = await testDatabases();
  writeFileSync(secretFile, "secret-a\n");
  idp = await TestIdp.start("console", "secret-a", REDIRECT);
  idp.accounts.set("alice", { id: "alice", preferred_username: "Alice A", groups: ["net-ops"] });
  idp.accounts.set("bob", { id: "bob", email: "bob@example.test", groups: ["admins"] });
});
after(async () => {
  await idp.stop();
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;
const yaml = (loginPerMinute = 5) => `
auth:
  mode: oidc
  groupRoles: { net-ops: operator, admins: admin }
  oidc:
    issuer: https://idp.invalid
    clientID: console
    redirectURL: ${REDIRECT}
    clientSecretFile: ${secretFile}
rateLimit: { loginPerMinute: ${loginPerMinute} }
database:
  url: pglite:memory
`;

async function oidcConsole(loginPerMinute?: number): Promise<{ server: ConsoleServer; clock: TestClock }> {
  const clock = new TestClock(Date.now());
  const { db } = await dbs.fresh();
  const server = await startConsole(yaml(loginPerMinute), {
    db,
    clock,
    server: { unsafeOidcTestIssuer: idp.issuer },
  });
  await server.whenReady();
  return { server, clock };
}

const browser = (s: ConsoleServer) => new CookieClient(s.httpUrl, "__Host-svc_csrf");

/** Starts a sign-in in `b`; resolves with the callback query the provider sends back. */
async function begin(b: CookieClient, account: string, returnTo = "/matrix"): Promise<string> {
  idp.nextLogin = account;
  const start = await b.request("GET", `/api/v1/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`);
  assert.equal(start.status, 302, JSON.stringify(start.body));
  const to = start.headers.get("location") ?? "";
  assert.ok(to.startsWith(`${idp.issuer}/auth?`), to);
  const landed = await followRedirects(to, (u) => u.startsWith(REDIRECT));
  return new URL(landed).search;
}

const callback = (b: CookieClient, query: string) => b.request("GET", `/api/v1/auth/oidc/callback${query}`);

async function signIn(s: ConsoleServer, account: string): Promise<CookieClient> {
  const b = browser(s);
  const res = await callback(b, await begin(b, account));
  assert.equal(res.status, 302, JSON.stringify(res.body));
  return b;
}

interface Me {
  subject: string;
  displayName: string;
  groups: string[];
  roles: string[];
}
interface AuditRows {
  rows: { subject: string | null; subjectDisplay: string; outcome: string; action: string }[];
}

test("sign-in end to end: PKCE, sealed state cookie, oidc:<sub>, display claim, groups -> roles, audit", async () => {
  const { server } = await oidcConsole();
  try {
    const b = browser(server);
    const query = await begin(b, "alice", "/pairs/a?x=1");
    const auth = idp.authRequests.at(-1);
    assert.equal(auth?.searchParams.get("code_challenge_method"), "S256");
    assert.ok(auth?.searchParams.get("code_challenge"));
    assert.equal(auth?.searchParams.get("scope"), "openid profile email groups");
    const state = b.jar.get("__Host-svc_oidc") ?? "";
    assert.match(state, /^v1\./, "the sign-in state is sealed in a cookie");
    assert.ok(!state.includes(auth?.searchParams.get("state") ?? "-"), "sealed, not readable");

    const res = await callback(b, query);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/pairs/a?x=1");
    assert.ok(!b.jar.has("__Host-svc_oidc"), "state cookie is cleared");
    const session = b.lastSetCookie.find((l) => l.startsWith("__Host-svc_session="));
    assert.match(session ?? "", /HttpOnly/);
    assert.match(session ?? "", /Secure/);
    const me = (await b.request("GET", "/api/v1/auth/me")).body as Me;
    assert.equal(me.subject, "oidc:alice");
    assert.equal(me.displayName, "Alice A");
    assert.deepEqual(me.groups, ["net-ops"]);
    assert.deepEqual(me.roles, ["operator"]);

    // replaying the callback: the state cookie is gone, refused
    assert.equal((await callback(b, query)).status, 401);
    // bob has no preferred_username: display falls back to email
    const bob = await signIn(server, "bob");
    const bobMe = (await bob.request("GET", "/api/v1/auth/me")).body as Me;
    assert.equal(bobMe.displayName, "bob@example.test");
    assert.deepEqual(bobMe.roles, ["admin"]);
    const audit = (await bob.request("GET", "/api/v1/audit")).body as AuditRows;
    const ok = audit.rows.find((r) => r.outcome === "allowed" && r.subject === "oidc:alice");
    assert.equal(ok?.action, "GET /api/v1/auth/oidc/callback");
    assert.equal(ok?.subjectDisplay, "Alice A");
    const refused = audit.rows.find((r) => r.outcome === "error");
    assert.equal(refused?.subject, null);
    assert.equal(refused?.action, "GET /api/v1/auth/oidc/callback");

    assert.equal((await b.request("POST", "/api/v1/auth/logout")).status, 403, "CSRF on logout");
    assert.equal((await b.request("POST", "/api/v1/auth/logout", { csrf: true })).status, 204);
    assert.equal((await b.request("GET", "/api/v1/auth/me")).status, 401);
    // users routes exist only in local mode; open redirects are not followed
    assert.equal((await bob.request("GET", "/api/v1/users")).status, 404);
    const evil = browser(server);
    const q = await begin(evil, "alice", "//evil.example/x");
    assert.equal((await callback(evil, q)).headers.get("location"), "/");
  } finally {
    await server.stop();
  }
});

test("a sub in a reserved namespace is refused and audited as an error row without subject", async () => {
  const { server } = await oidcConsole();
  try {
    for (const sub of ["local:1", "oidc:alice", "token:x", "header:root"]) {
      idp.accounts.set(sub, { id: sub, preferred_username: "mallory" });
      const b = browser(server);
      const res = await callback(b, await begin(b, sub));
      assert.equal(res.status, 401, sub);
      assert.ok(!b.jar.has("__Host-svc_session"), sub);
    }
    const admin = await signIn(server, "bob");
    const audit = (await admin.request("GET", "/api/v1/audit")).body as AuditRows;
    const errors = audit.rows.filter((r) => r.outcome === "error");
    assert.equal(errors.length, 4);
    assert.ok(errors.every((r) => r.subject === null && r.subjectDisplay === ""));
    assert.ok(!audit.rows.some((r) => r.subjectDisplay === "mallory"));
  } finally {
    await server.stop();
  }
});

test("a rotated client secret fails sign-ins in flight; sign-ins older than 5 minutes fail", async () => {
  const { server, clock } = await oidcConsole();
  try {
    const b = browser(server);
    const query = await begin(b, "alice");
    writeFileSync(secretFile, "secret-b\n");
    idp.rotate("secret-b");
    const res = await callback(b, query);
    assert.equal(res.status, 401);
    assert.match(JSON.stringify(res.body), /rotated/);
    await signIn(server, "alice"); // a fresh sign-in under the new secret works

    const slow = browser(server);
    const late = await begin(slow, "alice");
    clock.advance(5 * MINUTE + 1000);
    const r = await callback(slow, late);
    assert.equal(r.status, 401);
    assert.match(JSON.stringify(r.body), /5 minutes/);
  } finally {
    writeFileSync(secretFile, "secret-a\n");
    idp.rotate("secret-a");
    await server.stop();
  }
});

test("refresh re-reads groups; 5xx keeps the session; invalid_grant ends it", async () => {
  const { server, clock } = await oidcConsole();
  idp.accounts.set("carol", { id: "carol", preferred_username: "carol", groups: ["net-ops"] });
  try {
    const b = await signIn(server, "carol");
    assert.deepEqual(((await b.request("GET", "/api/v1/auth/me")).body as Me).roles, ["operator"]);
    idp.accounts.set("carol", { id: "carol", preferred_username: "carol", groups: ["admins"] });
    clock.advance(30 * MINUTE);
    assert.deepEqual(((await b.request("GET", "/api/v1/auth/me")).body as Me).groups, ["net-ops"], "not due");
    clock.advance(28 * MINUTE + 1000); // access token (1 h) expires within 2 minutes: refresh
    const me = (await b.request("GET", "/api/v1/auth/me")).body as Me;
    assert.deepEqual(me.groups, ["admins"]);
    assert.deepEqual(me.roles, ["admin"]);

    idp.failWith = 503;
    clock.advance(58 * MINUTE + 1000);
    const kept = await b.request("GET", "/api/v1/auth/me");
    assert.equal(kept.status, 200, "an outage leaves the session in place");
    assert.deepEqual((kept.body as Me).groups, ["admins"]);
    idp.failWith = undefined;

    idp.accounts.delete("carol"); // the provider now answers invalid_grant
    const ended = await b.request("GET", "/api/v1/auth/me");
    assert.equal(ended.status, 401);
    assert.ok(!b.jar.has("__Host-svc_session"), "session cookie cleared");
  } finally {
    idp.failWith = undefined;
    await server.stop();
  }
});

test("start and callback budgets answer 429; refused callbacks audited at most 120 a minute per address", async () => {
  const { server, clock } = await oidcConsole(7); // 140 per address per minute
  try {
    const admin = await signIn(server, "bob"); // spends one start and one callback
    const anon = browser(server);
    const statuses: number[] = [];
    for (let i = 0; i < 140; i++) statuses.push((await callback(anon, "?code=x&state=y")).status);
    assert.deepEqual(new Set(statuses.slice(0, 139)), new Set([401]));
    assert.equal(statuses[139], 429);
    const errors = async () =>
      ((await admin.request("GET", "/api/v1/audit")).body as AuditRows).rows.filter(
        (r) => r.outcome === "error",
      ).length;
    assert.equal(await errors(), 120);
    for (let i = 0; i < 139; i++) await anon.request("GET", "/api/v1/auth/oidc/start");
    assert.equal((await anon.request("GET", "/api/v1/auth/oidc/start")).status, 429);
    clock.advance(MINUTE);
    assert.equal((await callback(anon, "?code=x&state=y")).status, 401, "budget reset after the minute");
    assert.equal((await anon.request("GET", "/api/v1/auth/oidc/start")).status, 302);
    assert.equal(await errors(), 121);
  } finally {
    await server.stop();
  }
});

test("oidc-mode permission matrix; boot warns about bindings of non-oidc users", async () => {
  const warnings: unknown[] = [];
  const { db, schema } = await dbs.fresh();
  const first = await startConsole(yaml(), { db, server: { unsafeOidcTestIssuer: idp.issuer } });
  await first.whenReady();
  const admin = await signIn(first, "bob");
  for (const subject of ["header:carl", "local:1", "oidc:alice"])
    await admin.request("POST", "/api/v1/rbac/bindings", { body: { subject, role: "viewer" }, csrf: true });
  await first.stop();
  const warn = (o: object, msg?: string) => warnings.push({ ...o, msg });
  const logger = { debug() {}, info() {}, error() {}, warn };
  const server = await startConsole(yaml(), {
    db: await dbs.reopen(schema),
    server: { unsafeOidcTestIssuer: idp.issuer, logger },
  });
  try {
    await server.whenReady();
    assert.deepEqual(warnings, [
      {
        subjects: ["header:carl", "local:1"],
        msg: "bindings of non-oidc: users resolve to nothing in oidc mode",
      },
    ]);
    const callers = { admin: await signIn(server, "bob"), operator: await signIn(server, "alice") };
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/config"],
      ["GET", "/api/v1/auth/me"],
      ["GET", "/api/v1/users"],
      ["POST", "/api/v1/auth/login", { username: "a", password: "b" }],
      ["GET", "/api/v1/tokens"],
      ["POST", "/api/v1/tokens", { name: "t" }],
      ["GET", "/api/v1/audit"],
      ["GET", "/api/v1/rbac/bindings"],
      ["GET", "/api/v1/auth/oidc/start"],
    ];
    const expected: Record<string, number[]> = {
      admin: [200, 200, 404, 404, 200, 201, 200, 200, 302],
      operator: [200, 200, 404, 404, 403, 403, 403, 403, 302],
      anonymous: [401, 401, 404, 404, 401, 401, 401, 401, 302],
    };
    for (const [who, codes] of Object.entries(expected)) {
      const c = who === "anonymous" ? browser(server) : callers[who as "admin" | "operator"];
      const got: number[] = [];
      for (const [method, path, body] of routes)
        got.push((await c.request(method, path, { body, csrf: true })).status);
      assert.deepEqual(got, codes, who);
    }
  } finally {
    await server.stop();
  }
});

test("OIDC groups named like Object.prototype keys hold no role: fleet reads answer 403", async () => {
  const groups = ["constructor", "__proto__", "toString", "hasOwnProperty"];
  idp.accounts.set("mallory", { id: "mallory", preferred_username: "mallory", groups });
  const { db } = await dbs.fresh();
  const server = await startConsole(yaml().replace("  mode: oidc\n", '  mode: oidc\n  defaultRole: ""\n'), {
    db,
    clock: new TestClock(Date.now()),
    server: { unsafeOidcTestIssuer: idp.issuer },
  });
  await server.whenReady();
  try {
    const b = await signIn(server, "mallory");
    const me = (await b.request("GET", "/api/v1/auth/me")).body as Me;
    assert.deepEqual(me.groups, groups);
    assert.deepEqual(me.roles, []);
    for (const path of ["/topology", "/matrix", "/overview", "/nodes/a", "/pairs/a/b"])
      assert.equal((await b.request("GET", `/api/v1/fleet${path}`)).status, 403, path);
  } finally {
    await server.stop();
  }
});
