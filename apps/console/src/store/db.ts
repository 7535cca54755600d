/**
 * The thin SQL surface the store is written against, implemented over a `pg` Pool (postgres.ts) and over PGlite
 * (pglite.ts). Both run the same SQL text with `$n` parameters.
 */

/** One row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Runs statements. Inside a transaction every call belongs to it. */
export interface SqlExecutor {
  /** One statement with `$1..$n` parameters; resolves with the rows. */
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Several `;`-separated statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A database: statements, transactions, and lifetime. */
export interface Db extends SqlExecutor {
  readonly kind: "postgres" | "pglite";
  /**
   * Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it throws (the error is rethrown).
   * Nothing `fn` wrote is visible to anyone unless it resolves.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Releases connections (or the embedded instance when this Db owns it). */
  close(): Promise<void>;
}

/** Quotes an SQL identifier (schema names in tests and `search_path`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
