import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { quoteIdent } from "./db.ts";
import { MIGRATIONS, migrate } from "./migrations.ts";
import { openPostgres } from "./postgres.ts";
import { SqlStore } from "./sql-store.ts";
import { type Backend, schemaName, storeSuite } from "./store-suite.ts";
import { postgresTestUrl, postgresUnavailable } from "./testing.ts";
import { tokenSuite } from "./token-suite.ts";

const skip = await postgresUnavailable();
const url = postgresTestUrl();

const backend: Backend = {
  open: async (schema) => openPostgres({ url, schema, max: 4 }),
  drop: async (schema) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    } finally {
      await c.end();
    }
  },
};

if (skip) test("postgres store suite", { skip }, () => {});
else {
  storeSuite("postgres", () => backend);
  tokenSuite("postgres", () => backend);

  test("postgres: replicas starting together on a fresh schema all come up and migrate it once between them", async () => {
    for (let round = 0; round < 5; round++) {
      const schema = schemaName();
      const dbs = await Promise.all(Array.from({ length: 8 }, () => backend.open(schema)));
      try {
        // each replica's first statement creates the schema if it is missing, all at the same moment
        const settled = await Promise.allSettled(dbs.map((db) => migrate(db)));
        const failed = settled.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
        assert.deepEqual(failed, [], `round ${round}: replicas that did not come up`);
        // between them they applied every migration once (migrate() answers the versions it applied)
        const versions = settled
          .flatMap((r) => (r.status === "fulfilled" ? r.value : []))
          .sort((a, b) => a - b);
        assert.deepEqual(
          versions,
          MIGRATIONS.map((m) => m.version),
        );
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
        await backend.drop(schema);
      }
    }
  });

  test("postgres: a transaction whose connection dies mid-way leaves nothing", async () => {
    const schema = schemaName();
    const db = await backend.open(schema);
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    try {
      await migrate(db);
      const store = new SqlStore(db);
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query(
            "INSERT INTO users (id, username, password_hash, created_at, password_changed_at) VALUES ('u1', 'dave', 'h', 1, 1)",
          );
          const [me] = await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
          // the server-side backend of this transaction is killed, as a crash or network cut would
          await killer.query("SELECT pg_terminate_backend($1)", [me?.pid]);
          await tx.query(
            "INSERT INTO role_bindings (id, subject, role, created_at) VALUES ('b1', 'local:u1', 'admin', 1)",
          );
        }),
      );
      assert.equal(await store.getUserByUsername("dave"), undefined);
      assert.deepEqual(await store.listBindings(), []);
    } finally {
      await killer.end();
      await db.close();
      await backend.drop(schema);
    }
  });
}
