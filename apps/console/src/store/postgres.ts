/** Db over a PostgreSQL server through a `pg` Pool. */
import pg from "pg";
import { type Db, quoteIdent, type Row, type SqlExecutor } from "./db.ts";

/** Options of openPostgres. */
export interface PostgresOptions {
  /** postgres:// or postgresql:// connection string */
  url: string;
  /** schema to use (created if missing) instead of the default search_path; for tests and shared databases */
  schema?: string;
  /** pool size; default 10 */
  max?: number;
  /** connect timeout in ms; default 5000 */
  connectTimeoutMs?: number;
  /**
   * client-side bound on one statement, ms; default 10000. A server that stops answering on an open connection
   * (hung, partitioned) fails the statement instead of holding the request forever; the connection is dropped.
   */
  queryTimeoutMs?: number;
}

/**
 * pg's own timeouts and lost connections carry no code: give them one so isStoreDown (retry at startup, 503 at
 * the edge) knows them.
 */
function withCode(e: unknown): unknown {
  if (!(e instanceof Error) || "code" in e) return e;
  if (/timeout/i.test(e.message)) return Object.assign(e, { code: "ETIMEDOUT" });
  if (/Connection terminated/i.test(e.message)) return Object.assign(e, { code: "ECONNRESET" });
  return e;
}

/** Opens a pool; connections are made lazily, so this does not prove the server is reachable. */
export function openPostgres(opts: PostgresOptions): Db {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    query_timeout: opts.queryTimeoutMs ?? 10_000,
    ...(opts.schema ? { options: `-c search_path=${quoteIdent(opts.schema)}` } : {}),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on("error", () => {});
  let schemaReady: Promise<void> | undefined;
  const ensureSchema = (): Promise<void> => {
    if (!opts.schema) return Promise.resolve();
    schemaReady ??= pool
      .query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(opts.schema)}`)
      .then(() => undefined)
      .catch((e: unknown) => {
        // replicas creating a missing schema at the same moment: IF NOT EXISTS checks before it inserts, so the
        // others lose on the catalog's unique index (23505) or see it made (42P06); the schema exists either way
        const code = (e as { code?: unknown }).code;
        if (code === "23505" || code === "42P06") return;
        schemaReady = undefined;
        throw e;
      });
    return schemaReady;
  };
  const on = (c: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query<R extends Row>(sql: string, params: readonly unknown[] = []) {
      try {
        await ensureSchema();
        return (await c.query<R>(sql, params as unknown[])).rows;
      } catch (e) {
        throw withCode(e);
      }
    },
    async exec(sql: string) {
      try {
        await ensureSchema();
        await c.query(sql);
      } catch (e) {
        throw withCode(e);
      }
    },
  });
  const top = on(pool);
  return {
    kind: "postgres",
    query: top.query,
    exec: top.exec,
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        await ensureSchema();
        client = await pool.connect();
      } catch (e) {
        throw withCode(e);
      }
      let broken = false;
      // A connection lost mid-transaction surfaces as the failing query; the client-level event must not crash us.
      const onError = (): void => {
        broken = true;
      };
      client.on("error", onError);
      try {
        await client.query("BEGIN");
        const out = await fn(on(client));
        await client.query("COMMIT");
        return out;
      } catch (e) {
        const err = withCode(e);
        const code = (err as { code?: unknown }).code;
        // a timed-out or lost connection is dropped (the server rolls back), not asked for a ROLLBACK it cannot answer
        if (broken || code === "ETIMEDOUT" || code === "ECONNRESET") broken = true;
        else {
          try {
            await client.query("ROLLBACK");
          } catch {
            broken = true;
          }
        }
        throw err;
      } finally {
        client.off("error", onError);
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
