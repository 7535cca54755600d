/**
 * The shared store of a multi-replica console (spec §8.4): a Redis connection for sign-in budgets and sessions.
 * connectShared() dials with `redis.dialTimeout`; when Redis is unreachable or refuses the handshake at startup it
 * logs a warning and resolves undefined, and the console falls back to in-process budgets per replica (sessions
 * then stay in the database, which every replica shares). A server without client-side-caching support is fine:
 * nothing here uses it.
 */
import { readFile } from "node:fs/promises";
import { Redis } from "ioredis";
import type { ConsoleConfig } from "../config/schema.ts";

/** Warning logged on the fallback (the spec's words). */
export const SHARED_STORE_FALLBACK =
  "shared store unreachable or refused the handshake at startup: falling back to an in-process bus per replica (budgets per replica, sessions in the database)";

/** Logging surface of connectShared. */
export interface SharedLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** `redis.url`, the URL in `redis.urlFile` (trimmed) or in the environment variable `redis.urlEnv`; "" when none is set. */
export async function redisUrl(cfg: ConsoleConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (cfg.redis.url !== "") return cfg.redis.url;
  if (cfg.redis.urlEnv !== "") return env[cfg.redis.urlEnv]?.trim() ?? "";
  if (cfg.redis.urlFile === "") return "";
  return (await readFile(cfg.redis.urlFile, "utf8")).trim();
}

/** Dials `url` within `dialTimeoutMs` and checks it answers PING; undefined (after a warning) when it does not. */
export async function connectShared(
  url: string,
  dialTimeoutMs: number,
  log: SharedLog,
): Promise<Redis | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: dialTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    // after a successful start, reconnect in the background; never give up
    retryStrategy: (times) => Math.min(times * 200, 5000),
  });
  redis.on("error", () => {}); // failures surface as rejected commands
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await redis.connect();
        if ((await redis.ping()) !== "PONG") throw new Error("PING not answered with PONG");
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${dialTimeoutMs} ms`)), dialTimeoutMs);
      }),
    ]);
    log.info({ redis: redactUrl(url) }, "shared store connected");
    return redis;
  } catch (e) {
    log.warn({ redis: redactUrl(url), err: String(e) }, SHARED_STORE_FALLBACK);
    redis.disconnect();
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.href;
  } catch {
    return "(unparsable)";
  }
}
