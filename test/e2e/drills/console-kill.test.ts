/**
 * Fault drill: the console SIGKILLed in the middle of writes. A `svc console` process on PostgreSQL (a fresh
 * database on the test server), local mode, the bootstrap administrator signed in; WRITERS concurrent clients
 * create users and mint tokens as fast as the console answers. After KILL_AFTER_MS the console is SIGKILLed, then
 * started again on the same ports and database: every write that was acknowledged (2xx received) is there, read
 * back through the API and straight from the database; writes that got no answer may or may not be there.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePorts } from "@svc/lab";
import pg from "pg";
import { stringify } from "yaml";
import { postgresTestUrl, postgresUnavailable } from "../../../apps/console/src/store/testing.ts";
import { CookieClient } from "../../../apps/console/src/testing/harness.ts";
import { skipUnless } from "../../helpers/env.ts";
import { SvcProcess } from "../../helpers/svc-process.ts";

const ADMIN_PW = "correct horse battery";
const WRITERS = 4;
const KILL_AFTER_MS = 3_000;

const opts = skipUnless((await postgresUnavailable()) || undefined);
const database = `svc_drill_${process.pid}_${Date.now().toString(36)}`;
let dir: string;
let console_: SvcProcess;
let httpUrl: string;
let metricsUrl: string;
let dsn: string;

async function admin(): Promise<CookieClient> {
  const c = new CookieClient(httpUrl, "__Host-svc_csrf");
  const r = await c.request("POST", "/api/v1/auth/login", {
    body: { username: "admin", password: ADMIN_PW },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return c;
}

async function onServer<T>(fn: (c: pg.Client) => Promise<T>, url = postgresTestUrl()): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

before(async () => {
  if (opts.skip) return;
  await onServer((c) => c.query(`CREATE DATABASE ${database}`));
  const u = new URL(postgresTestUrl());
  u.pathname = `/${database}`;
  dsn = u.toString();
  dir = mkdtempSync(join(tmpdir(), "svc-drill-console-kill-"));
  writeFileSync(join(dir, "pw"), ADMIN_PW);
  const [httpPort, metricsPort] = await freePorts(2);
  httpUrl = `http://127.0.0.1:${httpPort}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  const file = join(dir, "console.yaml");
  writeFileSync(
    file,
    stringify({
      httpPort,
      metricsPort,
      logLevel: "warn",
      auth: {
        mode: "local",
        defaultRole: "viewer",
        local: { bootstrapAdmin: "admin", bootstrapPasswordFile: join(dir, "pw") },
      },
      database: { url: dsn },
    }),
  );
  console_ = new SvcProcess("console", ["console", "--config", file], {}, dir);
  console_.spawn();
  await console_.waitOk(`${metricsUrl}/readyz`, 90_000);
});

after(async () => {
  if (opts.skip) return;
  await console_?.stop();
  await onServer((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  rmSync(dir, { recursive: true, force: true });
});

test("every acknowledged write survives a SIGKILL of the console", opts, async () => {
  const c = await admin();
  const ackedUsers: string[] = [];
  const ackedTokens: string[] = [];
  let sent = 0;
  let unanswered = 0;
  let stop = false;
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const user = i % 2 === 0;
      const name = `w${w}-${user ? "user" : "token"}-${i}`;
      sent++;
      try {
        const r = user
          ? await c.request("POST", "/api/v1/users", {
              body: { username: name, password: `${name}-password-long`, role: "viewer" },
              csrf: true,
            })
          : await c.request("POST", "/api/v1/tokens", { body: { name }, csrf: true });
        if (r.status >= 200 && r.status < 300) (user ? ackedUsers : ackedTokens).push(name);
        else if (!stop) assert.fail(`${name}: ${r.status} ${JSON.stringify(r.body)}`);
      } catch {
        unanswered++; // the connection died with the console: no answer, no promise
        return;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
  await console_.kill();
  stop = true;
  await Promise.all(writers);
  console.log(
    `${sent} writes sent, ${ackedUsers.length} users and ${ackedTokens.length} tokens acknowledged, ${unanswered} cut by the kill`,
  );
  assert.ok(ackedUsers.length > 0 && ackedTokens.length > 0, "writes were acknowledged before the kill");

  const t0 = Date.now();
  console_.spawn();
  await console_.waitOk(`${metricsUrl}/readyz`, 90_000);
  console.log(`console ready ${Date.now() - t0} ms after the restart`);
  const c2 = await admin();
  const users = await c2.request("GET", "/api/v1/users");
  assert.equal(users.status, 200);
  const haveUsers = new Set((users.body as { users: { username: string }[] }).users.map((u) => u.username));
  const tokens = await c2.request("GET", "/api/v1/tokens");
  assert.equal(tokens.status, 200);
  const haveTokens = new Set((tokens.body as { tokens: { name: string }[] }).tokens.map((t) => t.name));
  assert.deepEqual(
    ackedUsers.filter((u) => !haveUsers.has(u)),
    [],
    "acknowledged users missing after the restart",
  );
  assert.deepEqual(
    ackedTokens.filter((t) => !haveTokens.has(t)),
    [],
    "acknowledged tokens missing after the restart",
  );
  // and in the database itself
  const rows = await onServer((db) => db.query<{ username: string }>("SELECT username FROM users"), dsn);
  const inDb = new Set(rows.rows.map((r) => r.username));
  assert.deepEqual(
    ackedUsers.filter((u) => !inDb.has(u)),
    [],
  );
});
