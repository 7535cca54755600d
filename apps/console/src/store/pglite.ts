/**
 * Db over PGlite (PostgreSQL in WASM): `pglite:memory` or `pglite:<dir>`.
 *
 * Memory (issue 36, decisions.md "Embedded store memory"): creating a database (initdb) grows PGlite's WebAssembly
 * memory and compiles a second module, ~800 MiB that a process never gives back, while opening an existing one
 * costs ~300 MiB. So a new `pglite:<dir>` is created by a short-lived child process and only opened here; and the
 * server runs with small buffers (EMBEDDED_CONF: 16 MB of shared buffers instead of 128 MB), which bounds how far
 * its memory grows under load; and its WebAssembly is compiled by V8's baseline compiler only (`--liftoff-only`, set
 * when the first embedded store starts unless the operator's node flags name it): the optimizing tier's code and
 * compile memory cost ~60 MiB and measured no faster on the console's queries. `pglite:memory` has no directory to
 * hand over and is still created in-process.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { applyHeapPolicy } from "@svc/core/heap-policy";
import { type Db, quoteIdent, type Row, type SqlExecutor } from "./db.ts";

/** V8 flags of a process running the embedded store (decisions.md, "Embedded store memory"). */
export const EMBEDDED_V8_FLAGS: readonly string[] = ["--liftoff-only"];

/** The embedded server's memory settings (postgresql.conf lines). */
export const EMBEDDED_CONF: readonly string[] = [
  "shared_buffers=16MB",
  "temp_buffers=2MB",
  "wal_buffers=1MB",
  "work_mem=2MB",
  "maintenance_work_mem=16MB",
];

// run by the child: create the database in argv[2] with the module at argv[1], then exit (its memory goes with it)
const INIT_CHILD = `
const [url, dir] = process.argv.slice(1);
const { PGlite } = await import(url);
const db = new PGlite(dir);
await db.waitReady;
await db.close();
`;

/** Creates the PGlite database in `dir` in a child process (nothing to do when it exists). */
export async function initPgliteDir(dir: string): Promise<void> {
  if (existsSync(join(dir, "PG_VERSION"))) return;
  const url = import.meta.resolve("@electric-sql/pglite");
  await promisify(execFile)(process.execPath, ["--input-type=module", "-e", INIT_CHILD, url, dir], {
    timeout: 120_000,
  });
}

/** Options of pgliteDb. */
export interface PgliteOptions {
  /** schema to use (created if missing); for tests sharing one instance */
  schema?: string;
  /** whether close() closes the instance; default true */
  ownsInstance?: boolean;
}

/** Starts a PGlite instance for `target` ("memory" or a data directory). Takes a few seconds. */
export async function startPglite(target: string): Promise<PGlite> {
  applyHeapPolicy(EMBEDDED_V8_FLAGS);
  const opts = { postgresqlconf: [...EMBEDDED_CONF] };
  if (target !== "memory") await initPgliteDir(target);
  const db = target === "memory" ? new PGlite(opts) : new PGlite(target, opts);
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
