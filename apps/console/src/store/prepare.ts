/**
 * Store preparation at startup: migrate, then create the bootstrap administrator (local mode) and warn about
 * bindings that cannot resolve in oidc mode (spec §5.7). Retries while the database is unreachable; a database
 * migrated by a newer console, or any other non-connection failure, is fatal.
 */
import { ensureBootstrapAdmin } from "../auth/bootstrap.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import type { Db } from "./db.ts";
import { migrate, NewerSchemaError } from "./migrations.ts";
import type { Store } from "./store.ts";

/** Logging surface of store preparation. */
export interface PrepareLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** True when `e` says the database is unreachable or restarting (worth a retry; 503 at the edge). */
export function isStoreDown(e: unknown): boolean {
  const code =
    e !== null && typeof e === "object" && "code" in e ? String((e as { code: unknown }).code) : "";
  return (
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P03"].includes(code) ||
    code.startsWith("08")
  );
}

/** One preparation attempt. */
export async function prepareOnce(
  db: Db,
  store: Store,
  config: ConsoleConfig,
  now: number,
  log: PrepareLog,
): Promise<void> {
  const applied = await migrate(db);
  if (applied.length > 0) log.info({ versions: applied }, "store migrated");
  const { mode, local } = config.auth;
  if (mode === "local" && local.bootstrapAdmin !== "") {
    const made = await ensureBootstrapAdmin(store, local.bootstrapAdmin, local.bootstrapPasswordFile, now);
    if (made) log.info({ username: made.username }, "bootstrap administrator created");
  }
  if (mode === "oidc") {
    const stray = (await store.listBindings())
      .map((b) => b.subject)
      .filter((s) => !s.startsWith("oidc:") && !s.startsWith("group:"));
    if (stray.length > 0)
      log.warn(
        { subjects: [...new Set(stray)] },
        "bindings of non-oidc: users resolve to nothing in oidc mode",
      );
  }
}

/** Retries prepareOnce while the database is down; `stopped()` ends the loop; `sleep` waits (wakeable). */
export async function prepareStore(
  attempt: () => Promise<void>,
  stopped: () => boolean,
  sleep: (ms: number) => Promise<void>,
  log: PrepareLog,
): Promise<boolean> {
  let delay = 500;
  for (;;) {
    if (stopped()) return false;
    try {
      await attempt();
      return true;
    } catch (e) {
      if (e instanceof NewerSchemaError || !isStoreDown(e)) {
        log.error({ err: String(e) }, "console store refused");
        throw e;
      }
      log.warn({ err: String(e), retryInMs: delay }, "console store unreachable");
      await sleep(delay);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}
