/**
 * Test helper: fresh databases on both backends, for suites that must hold on PostgreSQL and on PGlite alike: one
 * PGlite instance per file (schemas per test) and, when the test server answers (always with CI=true), schemas on
 * the test PostgreSQL. Call eachDb() at the top of the file; close() in `after`.
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Db, quoteIdent } from "../store/db.ts";
import { pgliteDb, startPglite } from "../store/pglite.ts";
import { openPostgres } from "../store/postgres.ts";
import { schemaName } from "../store/store-suite.ts";
import { postgresTestUrl, postgresUnavailable } from "../store/testing.ts";

/** One backend. */
export interface DbBackend {
  kind: "postgres" | "pglite";
  /** a Db on a new, empty schema (not migrated) */
  fresh(): Promise<Db>;
}

/** The backends of this file, and their cleanup. */
export interface EachDb {
  backends: DbBackend[];
  /** why PostgreSQL is left out, when it is */
  skipped: string | false;
  close(): Promise<void>;
}

/** PGlite always; PostgreSQL when it answers. */
export async function eachDb(): Promise<EachDb> {
  const skipped = await postgresUnavailable();
  const schemas: string[] = [];
  let instance: PGlite | undefined;
  const backends: DbBackend[] = [
    {
      kind: "pglite",
      async fresh() {
        instance ??= await startPglite("memory");
        return pgliteDb(instance, { schema: schemaName(), ownsInstance: false });
      },
    },
  ];
  if (!skipped) {
    backends.push({
      kind: "postgres",
      async fresh() {
        const schema = schemaName();
        schemas.push(schema);
        return openPostgres({ url: postgresTestUrl(), schema, max: 4 });
      },
    });
  }
  return {
    backends,
    skipped,
    async close() {
      await instance?.close();
      if (schemas.length === 0) return;
      const c = new pg.Client({ connectionString: postgresTestUrl() });
      await c.connect();
      try {
        for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(s)} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
