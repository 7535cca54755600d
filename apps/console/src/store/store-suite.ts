/**
 * Test helper (not a test file): the store behaviour suite, run against PostgreSQL by store.postgres.test.ts and
 * against PGlite by store.pglite.test.ts. `backend.open(schema)` gives a Db bound to a fresh schema.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { ConflictError } from "../errors.ts";
import type { Db } from "./db.ts";
import { MIGRATIONS, migrate, NewerSchemaError } from "./migrations.ts";
import { localSubject, SqlStore } from "./sql-store.ts";
import type { SessionRecord } from "./store.ts";

/** How the suite reaches one backend. */
export interface Backend {
  /** a Db using `schema` (created if missing); closing it keeps the schema's data */
  open(schema: string): Promise<Db>;
  /** drops `schema` and everything in it */
  drop(schema: string): Promise<void>;
}

/** A fresh, unique schema name. */
export function schemaName(): string {
  return `console_test_${randomBytes(6).toString("hex")}`;
}

async function withStore(
  backend: Backend,
  fn: (store: SqlStore, db: Db, schema: string) => Promise<void>,
): Promise<void> {
  const schema = schemaName();
  const db = await backend.open(schema);
  try {
    await migrate(db);
    await fn(new SqlStore(db), db, schema);
  } finally {
    await db.close();
    await backend.drop(schema);
  }
}

const HOUR = 3_600_000;
/** Versions of the console's migrations, and one past the newest (a later console's). */
const KNOWN = MIGRATIONS.map((m) => m.version);
const NEXT = Math.max(...KNOWN) + 1;

function session(idHash: string, subject: string, now: number): SessionRecord {
  return {
    idHash,
    subject,
    display: subject,
    groups: ["g1"],
    csrf: `csrf-${idHash}`,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + 12 * HOUR,
    data: { k: 1 },
  };
}

/** Registers the suite's tests under `label`. */
export function storeSuite(label: string, getBackend: () => Backend): void {
  test(`${label}: migrations apply once, restart is a no-op, a newer schema is refused`, async () => {
    const backend = getBackend();
    const schema = schemaName();
    try {
      let db = await backend.open(schema);
      assert.deepEqual(await migrate(db), KNOWN);
      await db.close();
      db = await backend.open(schema);
      assert.deepEqual(await migrate(db), []);
      const later = [
        ...MIGRATIONS,
        { version: NEXT, name: "later", sql: "CREATE TABLE later_things (id text)" },
      ];
      assert.deepEqual(await migrate(db, later), [NEXT]);
      // this console (knowing only up to NEXT - 1) now meets a database migrated by a newer one
      await assert.rejects(
        migrate(db),
        (e: unknown) => e instanceof NewerSchemaError && e.databaseVersion === NEXT,
      );
      const rows = await db.query("SELECT version FROM schema_migrations ORDER BY version");
      assert.deepEqual(
        rows.map((r) => Number(r.version)),
        [...KNOWN, NEXT],
      );
      await db.close();
    } finally {
      await backend.drop(schema);
    }
  });

  test(`${label}: a failing migration leaves no trace`, async () => {
    const backend = getBackend();
    const schema = schemaName();
    const db = await backend.open(schema);
    try {
      const broken = [
        ...MIGRATIONS,
        { version: NEXT, name: "broken", sql: "CREATE TABLE half (id text); SELECT no_such_fn()" },
      ];
      await assert.rejects(migrate(db, broken));
      const tables = await db.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema],
      );
      assert.deepEqual(tables, []);
      assert.deepEqual(await migrate(db), KNOWN);
    } finally {
      await db.close();
      await backend.drop(schema);
    }
  });

  test(`${label}: users with their direct role; duplicates conflict; bootstrap only while empty`, () =>
    withStore(getBackend(), async (store) => {
      const now = 1_000_000;
      const first = await store.createUserIfNoneExist(
        { username: "admin", passwordHash: "h0", role: "admin" },
        now,
      );
      assert.ok(first);
      assert.equal(
        await store.createUserIfNoneExist({ username: "admin2", passwordHash: "h", role: "admin" }, now),
        undefined,
      );
      const u = await store.createUser({ username: "alice", passwordHash: "h1", role: "viewer" }, now);
      assert.equal(u.username, "alice");
      assert.equal(u.enabled, true);
      assert.equal(u.passwordChangedAt, now);
      await assert.rejects(
        store.createUser({ username: "alice", passwordHash: "h2", role: "admin" }, now),
        (e: unknown) => e instanceof ConflictError,
      );
      assert.equal(await store.countUsers(), 2);
      assert.deepEqual(
        (await store.listBindings(localSubject(u.id))).map((b) => [b.role, b.direct]),
        [["viewer", true]],
      );
      assert.deepEqual(
        (await store.listBindingsFor([localSubject(u.id), "group:x"])).map((b) => b.role),
        ["viewer"],
      );
      assert.deepEqual((await store.getUserByUsername("alice"))?.id, u.id);
      assert.deepEqual((await store.getUser(u.id))?.username, "alice");
      assert.equal(await store.getUserByUsername("nobody"), undefined);
      await store.setPasswordHash(u.id, "h3", 0);
      let again = await store.getUser(u.id);
      assert.equal(again?.passwordHash, "h3");
      assert.equal(again?.passwordChangedAt, now);
      await store.setPasswordHash(u.id, "h4", now + 5);
      again = await store.getUser(u.id);
      assert.equal(again?.passwordChangedAt, now + 5);
      assert.deepEqual(
        (await store.listUsers()).map((x) => x.username),
        ["admin", "alice"],
      );
    }));

  test(`${label}: a multi-row write failing half-way leaves nothing`, () =>
    withStore(getBackend(), async (store, db) => {
      // the binding insert (second row) violates its CHECK after the user row was written
      await assert.rejects(store.createUser({ username: "bob", passwordHash: "h", role: "" }, 1));
      assert.equal(await store.getUserByUsername("bob"), undefined);
      assert.equal(await store.countUsers(), 0);
      // a transaction abandoned by its caller mid-way leaves nothing either
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO audit (at, action, outcome) VALUES (1, 'x', 'allowed')");
          throw new Error("interrupted");
        }),
        /interrupted/,
      );
      assert.deepEqual(await store.listAudit(10), []);
    }));

  test(`${label}: sessions: create, touch, delete, purge by absolute and idle bound`, () =>
    withStore(getBackend(), async (store) => {
      const now = 10 * HOUR;
      await store.createSession(session("a", "local:1", now));
      await store.createSession(session("b", "local:1", now));
      await store.createSession(session("c", "local:2", now - 11 * HOUR));
      const got = await store.getSession("a");
      assert.deepEqual(got, session("a", "local:1", now));
      await store.touchSession("a", now + HOUR - 1);
      await store.touchSession("a", now); // never moves back
      assert.equal((await store.getSession("a"))?.lastSeenAt, now + HOUR - 1);
      // at now + 1h: "b" idle for 1h, "c" past 12h absolute; "a" was seen recently
      assert.equal(await store.purgeSessions(now + HOUR, HOUR), 2);
      assert.ok(await store.getSession("a"));
      assert.equal(await store.getSession("b"), undefined);
      assert.equal(await store.getSession("c"), undefined);
      // idle bound 0 disables idle purging
      await store.createSession(session("d", "local:1", now));
      assert.equal(await store.purgeSessions(now + 5 * HOUR, 0), 0);
      assert.equal(await store.deleteSessionsOf("local:1", "a"), 1);
      assert.ok(await store.getSession("a"));
      assert.equal(await store.deleteSession("a"), true);
      assert.equal(await store.deleteSession("a"), false);
    }));

  test(`${label}: audit newest first, tokens by hash, custom roles`, () =>
    withStore(getBackend(), async (store) => {
      for (let i = 0; i < 5; i++) {
        await store.appendAudit({
          at: 100 + i,
          subject: i === 4 ? null : `local:${i}`,
          subjectDisplay: `u${i}`,
          action: "POST /api/v1/auth/login",
          outcome: i === 4 ? "error" : "allowed",
          remoteAddr: "127.0.0.1",
        });
      }
      const rows = await store.listAudit(3);
      assert.deepEqual(
        rows.map((r) => [r.at, r.subject, r.outcome]),
        [
          [104, null, "error"],
          [103, "local:3", "allowed"],
          [102, "local:2", "allowed"],
        ],
      );
      await store.createToken({
        id: "t1",
        name: "ci",
        owner: "local:1",
        mintedBy: "local:1",
        secretHash: "sh",
        createdAt: 5,
        lastUsedAt: null,
        expiresAt: 99,
        revokedAt: null,
      });
      assert.equal((await store.getTokenByHash("sh"))?.expiresAt, 99);
      assert.equal(await store.getTokenByHash("nope"), undefined);
      await store.putCustomRole({ name: "auditor", permissions: ["audit:read"] }, 1);
      await store.putCustomRole({ name: "auditor", permissions: ["audit:read", "events:read"] }, 2);
      assert.deepEqual(await store.listCustomRoles(), [
        { name: "auditor", permissions: ["audit:read", "events:read"], createdAt: 1 },
      ]);
    }));

  test(`${label}: user administration in one locked transaction`, () =>
    withStore(getBackend(), async (store) => {
      const u = await store.createUser({ username: "hal", passwordHash: "h", role: "viewer" }, 1);
      const subject = localSubject(u.id);
      await store.createSession(session("s1", subject, 1));
      await store.createSession(session("s2", subject, 1));
      const token = {
        name: "t",
        owner: subject,
        mintedBy: subject,
        createdAt: 1,
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
      };
      await store.createToken({ ...token, id: "t1", secretHash: "x1" });
      await store.createToken({ ...token, id: "t2", secretHash: "x2", owner: "local:other" });
      const n = await store.userAdmin(async (tx) => {
        await tx.setDirectRole(subject, "operator", 2);
        await tx.setEnabled(u.id, false, 2);
        await tx.setEnabled(u.id, true, 3);
        await tx.setPasswordHash(u.id, "h2", 4);
        assert.equal(await tx.deleteSessionsOf(subject, "s1"), 1);
        return tx.revokeTokensOf(subject, 5);
      });
      assert.equal(n, 2, "tokens owned and tokens minted");
      const after = await store.getUser(u.id);
      assert.deepEqual(
        [after?.enabled, after?.reenabledAt, after?.passwordHash, after?.passwordChangedAt],
        [true, 3, "h2", 4],
      );
      assert.deepEqual(
        (await store.listBindings(subject)).map((b) => [b.role, b.direct]),
        [["operator", true]],
      );
      assert.equal((await store.getTokenByHash("x1"))?.revokedAt, 5);
      // a failure inside rolls everything back
      await assert.rejects(
        store.userAdmin(async (tx) => {
          await tx.deleteUser(u.id);
          throw new Error("interrupted");
        }),
      );
      assert.ok(await store.getUser(u.id));
      await store.userAdmin((tx) => tx.deleteUser(u.id));
      assert.equal(await store.getUser(u.id), undefined);
      assert.deepEqual(await store.listBindings(subject), []);
    }));

  test(`${label}: a restart keeps users, bindings, sessions and audit`, async () => {
    const backend = getBackend();
    const schema = schemaName();
    try {
      let db = await backend.open(schema);
      await migrate(db);
      let store = new SqlStore(db);
      const u = await store.createUser({ username: "carol", passwordHash: "h", role: "operator" }, 1);
      await store.createSession(session("s", localSubject(u.id), 1));
      await store.appendAudit({
        at: 1,
        subject: "x",
        subjectDisplay: "x",
        action: "a",
        outcome: "denied",
        remoteAddr: "",
      });
      await store.close();
      db = await backend.open(schema);
      await migrate(db);
      store = new SqlStore(db);
      assert.equal((await store.getUserByUsername("carol"))?.id, u.id);
      assert.equal((await store.listBindings(localSubject(u.id)))[0]?.role, "operator");
      assert.ok(await store.getSession("s"));
      assert.equal((await store.listAudit(200)).length, 1);
      await store.close();
    } finally {
      await backend.drop(schema);
    }
  });
}
