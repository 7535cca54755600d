/**
 * `svc console`: load the config, open the database (none = in-memory mode), start the server, stop on
 * SIGINT/SIGTERM; with replicas > 1 it first dials the shared store (falling back per replica with a warning). Stop
 * order: listeners, purge timer, database, shared store. Resolves with the exit code: 0 after a signal,
 * 1 for an invalid config, an unreadable secret file, or a database this console must refuse.
 */
import { readFile } from "node:fs/promises";
import { ConfigError, createLogger, SVC_VERSION, waitForShutdown } from "@svc/core";
import { applyHeapPolicy } from "@svc/core/heap-policy";
import type { Redis } from "ioredis";
import { loadConsoleConfig } from "./config/load.ts";
import type { ConsoleConfig } from "./config/schema.ts";
import { CONSOLE_HEAP_FLAGS } from "./heap-policy.ts";
import { ConsoleServer } from "./server.ts";
import { connectShared, redisUrl } from "./shared/redis.ts";
import type { Db } from "./store/db.ts";
import { openDb } from "./store/open.ts";

/** Options of runConsole. */
export interface RunConsoleOptions {
  /** config file; default env SVC_CONFIG, else all defaults */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The DSN: `database.url`, the content of `database.urlFile` (trimmed), or the environment variable named by
 * `database.urlEnv`; "" when none is set (in-memory mode).
 */
export async function databaseUrl(cfg: ConsoleConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (cfg.database.url !== "") return cfg.database.url;
  if (cfg.database.urlEnv !== "") {
    const v = env[cfg.database.urlEnv]?.trim();
    if (!v)
      throw new ConfigError([`database.urlEnv: the environment variable ${cfg.database.urlEnv} is not set`]);
    return v;
  }
  if (cfg.database.urlFile === "") return "";
  try {
    return (await readFile(cfg.database.urlFile, "utf8")).trim();
  } catch (e) {
    throw new ConfigError([
      `database.urlFile: cannot read ${cfg.database.urlFile} (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
    ]);
  }
}

/** Runs the console until SIGINT/SIGTERM; resolves with the process exit code. */
export async function runConsole(opts: RunConsoleOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  let config: ConsoleConfig;
  let warnings: string[];
  let url: string;
  try {
    ({ config, warnings } = loadConsoleConfig(opts.configPath ?? (env.SVC_CONFIG || undefined), env));
    url = await databaseUrl(config, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`svc console: invalid configuration:\n  ${err.issues.join("\n  ")}`);
      return 1;
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "console" });
  for (const w of warnings) logger.warn({ warning: w }, "configuration warning");
  const heapFlags = applyHeapPolicy(CONSOLE_HEAP_FLAGS);
  if (heapFlags.length > 0) logger.debug({ flags: heapFlags }, "garbage-collection policy applied");
  // replicas > 1: budgets and sessions in the shared store; unreachable at startup -> per replica (spec §8.4)
  let redis: Redis | undefined;
  if (config.replicas > 1) {
    let url: string;
    try {
      url = await redisUrl(config, env);
    } catch (e) {
      console.error(`svc console: invalid configuration:\n  redis.urlFile: cannot read (${String(e)})`);
      return 1;
    }
    redis = await connectShared(url, config.redis.dialTimeout, logger);
  }

  let db: Db | undefined;
  if (url !== "") db = await openDb(url);
  else
    logger.warn(
      {},
      "no database configured: in-memory mode, no history, anonymous or header identities only",
    );

  const server = new ConsoleServer({ config, db, redis, logger, version: SVC_VERSION });
  const shutdown = waitForShutdown(env);
  try {
    await server.start();
  } catch (e) {
    logger.error({ err: String(e) }, "console failed to start");
    await server.stop();
    redis?.disconnect();
    return 1;
  }
  logger.info(
    { version: SVC_VERSION, http: server.httpUrl, metrics: server.metricsUrl, mode: config.auth.mode },
    "console started",
  );
  const outcome = await Promise.race([
    shutdown.then((signal) => ({ signal })),
    server.whenReady().then(
      () => shutdown.then((signal) => ({ signal })),
      (err: unknown) => ({ err }),
    ),
  ]);
  await server.stop();
  redis?.disconnect();
  if ("err" in outcome) {
    logger.error({ err: String(outcome.err) }, "console stopped: store refused");
    return 1;
  }
  logger.info({ signal: outcome.signal }, "console stopped");
  return 0;
}
