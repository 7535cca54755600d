/**
 * Fault drill: the console's PostgreSQL refused, hung, restored. A local-mode console (the production
 * PostgreSQL path: a pg pool, as `database.url: postgres://...` opens it) reaches the test server through a
 * test-owned TCP proxy, on a fresh schema. While the proxy refuses, and while it hangs (accepts, never answers;
 * open connections stall too), reads and writes that need the database answer 503 within a bound; after `pass`
 * they succeed again without restarting the console.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import type { ConsoleServer } from "../../../apps/console/src/server.ts";
import { quoteIdent } from "../../../apps/console/src/store/db.ts";
import { openPostgres } from "../../../apps/console/src/store/postgres.ts";
import { schemaName } from "../../../apps/console/src/store/store-suite.ts";
import { postgresTestUrl, postgresUnavailable } from "../../../apps/console/src/store/testing.ts";
import { CookieClient, startConsole } from "../../../apps/console/src/testing/harness.ts";
import { skipUnless } from "../../helpers/env.ts";
import { type ProxyMode, TcpProxy } from "../../helpers/tcp-proxy.ts";

const ADMIN_PW = "correct horse battery";
/** What a request may take while the database is down: the pool's connect (5 s) or statement (10 s) timeout plus slack. */
const BOUND_MS = 15_000;

const opts = skipUnless((await postgresUnavailable()) || undefined);
let proxy: TcpProxy;
let server: ConsoleServer;
let admin: CookieClient;
let dir: string;
const schema = schemaName();
let made = 0;

/** A request as the signed-in admin, with its duration. */
async function call(method: string, path: string, body?: unknown) {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([
    admin.request(method, path, { body, csrf: method !== "GET" }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${method} ${path} hung (${proxy.mode})`)), 45_000);
    }),
  ]).finally(() => clearTimeout(timer));
  const out = { ...r, ms: Date.now() - t0 };
  if (process.env.DRILL_VERBOSE)
    console.log(`${proxy.mode} ${method} ${path} -> ${r.status} in ${out.ms} ms`);
  return out;
}
const listUsers = () => call("GET", "/api/v1/users");
const createUser = () =>
  call("POST", "/api/v1/users", {
    username: `drill-${++made}`,
    password: "drill-password-long",
    role: "viewer",
  });

before(async () => {
  if (opts.skip) return;
  const target = new URL(postgresTestUrl());
  proxy = await TcpProxy.start(Number(target.port || 5432), target.hostname);
  const proxied = new URL(postgresTestUrl());
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  dir = mkdtempSync(join(tmpdir(), "svc-drill-pg-"));
  writeFileSync(join(dir, "pw"), ADMIN_PW);
  const db = openPostgres({ url: proxied.toString(), schema, connectTimeoutMs: 5000 });
  server = await startConsole(
    `auth:\n  mode: local\n  local:\n    bootstrapAdmin: admin\n    bootstrapPasswordFile: ${join(dir, "pw")}\ndatabase:\n  url: ${proxied}\n`,
    { db },
  );
  await server.whenReady();
  admin = new CookieClient(server.httpUrl, "__Host-svc_csrf");
  const r = await admin.request("POST", "/api/v1/auth/login", {
    body: { username: "admin", password: ADMIN_PW },
  });
  assert.equal(r.status, 200);
});

after(async () => {
  if (opts.skip) return;
  proxy?.set("pass");
  await server?.stop();
  await proxy?.close();
  const c = new pg.Client({ connectionString: postgresTestUrl() });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  await c.end();
  rmSync(dir, { recursive: true, force: true });
});

async function assertDown(mode: ProxyMode): Promise<void> {
  for (const [what, r] of [
    ["read", await listUsers()],
    ["write", await createUser()],
  ] as const) {
    assert.equal(r.status, 503, `${mode} ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal((r.body as { error: { code: string } }).error.code, "unavailable");
    assert.ok(r.ms < BOUND_MS, `${mode} ${what} took ${r.ms} ms`);
  }
  const ready = await fetch(`${server.metricsUrl}/readyz`);
  assert.equal(ready.status, 503, `${mode}: /readyz ${ready.status}`);
}

async function assertRecovered(): Promise<void> {
  // the pool may still hold a connection that died with the outage: a few seconds to come back
  const deadline = Date.now() + 15_000;
  let last = await listUsers();
  while (last.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    last = await listUsers();
  }
  assert.equal(last.status, 200, JSON.stringify(last.body));
  const w = await createUser();
  assert.equal(w.status, 201, JSON.stringify(w.body));
  const names = ((await listUsers()).body as { users: { username: string }[] }).users.map((u) => u.username);
  assert.ok(names.includes(`drill-${made}`), names.join(","));
}

test("healthy through the proxy", opts, async () => {
  assert.equal((await listUsers()).status, 200);
  assert.equal((await createUser()).status, 201);
});

test("refused: 503 at once, then back after pass without a restart", opts, async () => {
  proxy.set("refuse");
  await assertDown("refuse");
  proxy.set("pass");
  await assertRecovered();
});

test("hung: 503 within the bound (open connections stalled too), then back after pass", opts, async () => {
  proxy.set("hang");
  await assertDown("hang");
  proxy.set("pass");
  await assertRecovered();
});

test("hung then refused then restored, the console never restarted", opts, async () => {
  proxy.set("hang");
  const hung = listUsers(); // in flight when the proxy switches
  await new Promise((r) => setTimeout(r, 500));
  proxy.set("refuse");
  const r = await hung;
  assert.equal(r.status, 503, JSON.stringify(r.body));
  assert.ok(r.ms < BOUND_MS, `took ${r.ms} ms`);
  proxy.set("pass");
  await assertRecovered();
});
