import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Redis } from "ioredis";
import { hashSessionId } from "../auth/sessions.ts";
import type { ConsoleServer } from "../server.ts";
import { SqlStore } from "../store/sql-store.ts";
import { CookieClient, startConsole } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";
import { connectShared, SHARED_STORE_FALLBACK } from "./redis.ts";

const REDIS = process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const dir = mkdtempSync(join(tmpdir(), "svc-console-redis-"));
const passwordFile = join(dir, "pw");
const PW = "correct horse battery";
writeFileSync(passwordFile, PW);

interface Logged {
  level: string;
  msg: string;
}
const logger = (into: Logged[]) => ({
  info: (_o: object, msg = "") => into.push({ level: "info", msg }),
  warn: (_o: object, msg = "") => into.push({ level: "warn", msg }),
});

// decided before tests are declared, so a missing Redis can skip them (never with CI=true)
const redis: Redis | undefined = await connectShared(REDIS, 2000, logger([]));
let dbs: TestDatabases;
const prefixes: string[] = [];
before(async () => {
  dbs = await testDatabases();
});
after(async () => {
  if (redis) {
    for (const p of prefixes) {
      const keys = await redis.keys(`${p}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  }
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

const skip = (): string | false =>
  redis || process.env.CI === "true" ? false : `Redis at ${REDIS} unreachable`;

const yaml = `
replicas: 2
auth:
  mode: local
  local: { bootstrapAdmin: admin, bootstrapPasswordFile: ${passwordFile} }
rateLimit: { loginPerMinute: 3 }
database: { url: pglite:memory }
redis: { url: ${REDIS} }
`;

/** Two replicas over one database schema and one Redis key prefix. */
async function replicas(): Promise<{ a: ConsoleServer; b: ConsoleServer; store: SqlStore; prefix: string }> {
  if (!redis) throw new Error("no Redis");
  const prefix = `svc-test-${randomBytes(6).toString("hex")}:`;
  prefixes.push(prefix);
  const { db, schema } = await dbs.fresh();
  const a = await startConsole(yaml, { db, server: { redis, redisPrefix: prefix } });
  await a.whenReady();
  const b = await startConsole(yaml, {
    db: await dbs.reopen(schema),
    server: { redis, redisPrefix: prefix },
  });
  await b.whenReady();
  return { a, b, store: new SqlStore(db), prefix };
}

const login = (s: ConsoleServer, username: string, password: string) => {
  const c = new CookieClient(s.httpUrl, "__Host-svc_csrf");
  return c.request("POST", "/api/v1/auth/login", { body: { username, password } }).then((r) => ({ c, r }));
};

/** The same browser talking to another replica. */
function on(s: ConsoleServer, from: CookieClient): CookieClient {
  const c = new CookieClient(s.httpUrl, "__Host-svc_csrf");
  for (const [k, v] of from.jar) c.jar.set(k, v);
  return c;
}

test("replicas share sessions through Redis: created on one, valid and ended on the other", {
  skip: skip(),
}, async () => {
  const { a, b, store, prefix } = await replicas();
  try {
    const { c, r } = await login(a, "admin", PW);
    assert.equal(r.status, 200);
    const id = c.jar.get("__Host-svc_session") ?? "";
    const hash = hashSessionId(id);
    assert.equal(await redis?.exists(`${prefix}session:${hash}`), 1, "the session lives in Redis");
    assert.equal(await store.getSession(hash), undefined, "and not in the database");
    const onB = on(b, c);
    assert.equal((await onB.request("GET", "/api/v1/auth/me")).status, 200);
    // a user created on B, signed in on A, has its password reset on B: its session on A ends
    const made = await onB.request("POST", "/api/v1/users", {
      body: { username: "dana", password: "dana-password-1", role: "viewer" },
      csrf: true,
    });
    assert.equal(made.status, 201);
    const dana = await login(a, "dana", "dana-password-1");
    assert.equal(dana.r.status, 200);
    const reset = await onB.request("PUT", `/api/v1/users/${(made.body as { id: string }).id}/password`, {
      body: { password: "dana-password-2" },
      csrf: true,
    });
    assert.equal(reset.status, 204);
    assert.equal((await dana.c.request("GET", "/api/v1/auth/me")).status, 401);

    assert.equal((await onB.request("POST", "/api/v1/auth/logout", { csrf: true })).status, 204);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401, "logout on B ends it on A");
    assert.equal(await redis?.exists(`${prefix}session:${hash}`), 0);
  } finally {
    await a.stop();
    await b.stop();
  }
});

test("the per-username sign-in budget is shared by replicas", { skip: skip() }, async () => {
  const { a, b } = await replicas();
  try {
    assert.equal((await login(a, "admin", "wrong password!")).r.status, 401);
    assert.equal((await login(b, "admin", "wrong password!")).r.status, 401);
    assert.equal((await login(a, "admin", PW)).r.status, 200);
    const limited = (await login(b, "admin", PW)).r;
    assert.equal(limited.status, 429, "3 per minute across both replicas");
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.equal((await login(a, "someone-else", "x-password-long")).r.status, 401, "other names unaffected");
  } finally {
    await a.stop();
    await b.stop();
  }
});

async function fakeServer(
  onConnect: (s: import("node:net").Socket) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(onConnect);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const a = server.address();
  return { server, url: `redis://127.0.0.1:${typeof a === "object" && a ? a.port : 0}` };
}

test("unreachable, handshake-refusing or silent Redis at startup: fallback with the spec's warning", async () => {
  const logs: Logged[] = [];
  const closed = await fakeServer(() => {});
  const url = closed.url;
  await new Promise<void>((r) => closed.server.close(() => r()));
  assert.equal(await connectShared(url, 1000, logger(logs)), undefined, "connection refused");

  const refusing = await fakeServer((s) => {
    s.on("data", () => s.end("-ERR handshake refused\r\n"));
  });
  const held: import("node:net").Socket[] = [];
  const silent = await fakeServer((s) => held.push(s)); // accepts, never answers: redis.dialTimeout bounds the wait
  try {
    assert.equal(await connectShared(refusing.url, 1000, logger(logs)), undefined, "handshake refused");
    assert.equal(await connectShared(silent.url, 300, logger(logs)), undefined, "dial timeout");
  } finally {
    refusing.server.close();
    for (const s of held) s.destroy();
    silent.server.close();
  }
  assert.equal(logs.length, 3);
  assert.ok(logs.every((l) => l.level === "warn" && l.msg === SHARED_STORE_FALLBACK));
  assert.match(SHARED_STORE_FALLBACK, /in-process bus per replica/);
});
