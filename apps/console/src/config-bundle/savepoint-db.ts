/**
 * A Db bound to one open transaction: its statements run in that transaction, and its own `transaction()` is a
 * savepoint inside it (rolled back alone when `fn` throws). The import builds every section's store over it, so a
 * bundle's items go through the stores' own write paths, each item can fail alone, and a dry run rolls the whole
 * transaction back.
 */
import type { Db, SqlExecutor } from "../store/db.ts";

/** `tx` as a Db whose transactions are savepoints; close() does nothing (the owner ends the transaction). */
export function savepointDb(tx: SqlExecutor, kind: Db["kind"]): Db {
  let next = 0;
  const db: Db = {
    kind,
    query: (sql, params) => tx.query(sql, params),
    exec: (sql) => tx.exec(sql),
    async transaction<T>(fn: (t: SqlExecutor) => Promise<T>): Promise<T> {
      const name = `svc_sp_${++next}`;
      await tx.query(`SAVEPOINT ${name}`);
      let out: T;
      try {
        out = await fn(db);
      } catch (e) {
        await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
        await tx.query(`RELEASE SAVEPOINT ${name}`);
        throw e;
      }
      await tx.query(`RELEASE SAVEPOINT ${name}`);
      return out;
    },
    async close() {},
  };
  return db;
}
