/** Test helpers for reaching the test PostgreSQL server (127.0.0.1:5432, trust auth, database `test`). */
import pg from "pg";

/** URL of the test database; env SVC_TEST_POSTGRES_URL overrides. */
export function postgresTestUrl(): string {
  return process.env.SVC_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
}

/**
 * Resolves with a skip reason when the test PostgreSQL is unreachable, or false. With CI=true it never skips:
 * it resolves false and the tests fail loudly instead.
 */
export async function postgresUnavailable(): Promise<string | false> {
  const c = new pg.Client({ connectionString: postgresTestUrl(), connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return false;
  } catch (e) {
    if (process.env.CI === "true") return false;
    return `PostgreSQL at ${postgresTestUrl()} unreachable (${(e as Error).message})`;
  }
}
