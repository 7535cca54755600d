/** Db over PGlite (PostgreSQL in WASM): `pglite:memory` or `pglite:<dir>`. */
import { PGlite } from "@electric-sql/pglite";
import { type Db, quoteIdent, type Row, type SqlExecutor } from "./db.ts";

/** Options of pgliteDb. */
export interface PgliteOptions {
  /** schema to use (created if missing); for tests sharing one instance */
  schema?: string;
  /** whether close() closes the instance; default true */
  ownsInstance?: boolean;
}

/** Starts a PGlite instance for `target` ("memory" or a data directory). Takes a few seconds. */
export async function startPglite(target: string): Promise<PGlite> {
  const db = target === "memory" ? new PGlite() : new PGlite(target);
  await db.waitReady;
  return db;
}

/**
 * Wraps a PGlite instance. PGlite is one connection: statements and transactions are serialised by PGlite itself.
 */
export async function pgliteDb(instance: PGlite, opts: PgliteOptions = {}): Promise<Db> {
  if (opts.schema) {
    await instance.exec(
      `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(opts.schema)}; SET search_path TO ${quoteIdent(opts.schema)}`,
    );
  }
  const on = (c: Pick<PGlite, "query" | "exec">): SqlExecutor => ({
    async query<R extends Row>(sql: string, params: readonly unknown[] = []) {
      return (await c.query<R>(sql, params as unknown[])).rows;
    },
    async exec(sql: string) {
      await c.exec(sql);
    },
  });
  const top = on(instance);
  return {
    kind: "pglite",
    query: top.query,
    exec: top.exec,
    transaction: (fn) => instance.transaction((tx) => fn(on(tx))),
    async close() {
      if (opts.ownsInstance ?? true) await instance.close();
    },
  };
}
