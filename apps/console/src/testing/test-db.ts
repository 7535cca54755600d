/**
 * Test helper: fresh databases for HTTP-level tests. A schema on the test PostgreSQL when it answers (fast to
 * create), else schemas in one PGlite per file. close() drops what it made.
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Db, quoteIdent } from "../store/db.ts";
import { pgliteDb, startPglite } from "../store/pglite.ts";
import { openPostgres } from "../store/postgres.ts";
import { schemaName } from "../store/store-suite.ts";
import { postgresTestUrl, postgresUnavailable } from "../store/testing.ts";

/** A source of fresh databases. */
export interface TestDatabases {
  readonly kind: "postgres" | "pglite";
  /** a Db on a new, empty schema; closing it keeps the data (reopen with `reopen`) */
  fresh(): Promise<{ db: Db; schema: string }>;
  /** another Db on an existing schema (a restart) */
  reopen(schema: string): Promise<Db>;
  close(): Promise<void>;
}

/** PostgreSQL schemas when the test server answers, else PGlite. */
export async function testDatabases(): Promise<TestDatabases> {
  const schemas: string[] = [];
  if (!(await postgresUnavailable())) {
    const url = postgresTestUrl();
    const open = async (schema: string) => openPostgres({ url, schema, max: 4 });
    return {
      kind: "postgres",
      async fresh() {
        const schema = schemaName();
        schemas.push(schema);
        return { db: await open(schema), schema };
      },
      reopen: open,
      async close() {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(s)} CASCADE`);
        } finally {
          await c.end();
        }
      },
    };
  }
  let instance: PGlite | undefined;
  const get = async () => {
    instance ??= await startPglite("memory");
    return instance;
  };
  const open = async (schema: string) => pgliteDb(await get(), { schema, ownsInstance: false });
  return {
    kind: "pglite",
    async fresh() {
      const schema = schemaName();
      return { db: await open(schema), schema };
    },
    reopen: open,
    close: async () => {
      await instance?.close();
    },
  };
}
