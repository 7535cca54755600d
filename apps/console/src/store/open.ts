/** Opens the configured store: PostgreSQL for postgres:// URLs, PGlite for `pglite:memory` / `pglite:<dir>`. */
import type { Db } from "./db.ts";
import { pgliteDb, startPglite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";

/** Opens a Db for `url` (already validated by the config loader). Migrations are not applied here. */
export async function openDb(url: string, connectTimeoutMs = 5000): Promise<Db> {
  if (url.startsWith("pglite:")) return pgliteDb(await startPglite(url.slice("pglite:".length)));
  return openPostgres({ url, connectTimeoutMs });
}
