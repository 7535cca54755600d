/**
 * Test helper: local-mode consoles on fresh databases with a signed-in bootstrap administrator, and the small
 * client helpers the users, matrix and fuzz tests share. Call localEnvs() in `before`, close() in `after`.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConsoleServer, ConsoleServerOptions } from "../server.ts";
import type { Db } from "../store/db.ts";
import { SqlStore } from "../store/sql-store.ts";
import { CookieClient, startConsole, TestClock } from "./harness.ts";
import { testDatabases } from "./test-db.ts";

/** Password of the bootstrap administrator `admin`. */
export const ADMIN_PW = "correct horse battery";

/** One console under test. */
export interface LocalEnv {
  server: ConsoleServer;
  store: SqlStore;
  db: Db;
  clock: TestClock;
  /** signed in as `admin` (local mode) */
  admin: CookieClient;
}

/** Makes LocalEnvs. */
export interface LocalEnvs {
  /** a console in `mode` (local: admin signed in); `extra` YAML is appended after the `database:` block */
  env(mode?: string, extra?: string, serverOptions?: Partial<ConsoleServerOptions>): Promise<LocalEnv>;
  close(): Promise<void>;
}

/** A browser-like client of `s`. */
export const browser = (s: ConsoleServer) => new CookieClient(s.httpUrl, "__Host-svc_csrf");

/** Signs in as a fresh browser would. */
export const login = (c: CookieClient, username: string, password: string) => {
  c.jar.clear();
  return c.request("POST", "/api/v1/auth/login", { body: { username, password } });
};

/** A state-changing request with the CSRF header. */
export const w = (
  c: CookieClient,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => c.request(method, path, { body, csrf: true, headers });

/** Creates a local user (password `<username>-password-long`); resolves with its id. */
export async function createUser(e: LocalEnv, username: string, role: string): Promise<string> {
  const r = await w(e.admin, "POST", "/api/v1/users", {
    username,
    password: `${username}-password-long`,
    role,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return (r.body as { id: string }).id;
}

/** Fresh databases (PostgreSQL schemas, else PGlite), a bootstrap password file and a webhook key file. */
export async function localEnvs(): Promise<LocalEnvs> {
  const dbs = await testDatabases();
  const dir = mkdtempSync(join(tmpdir(), "svc-console-env-"));
  const passwordFile = join(dir, "admin-password");
  writeFileSync(passwordFile, ADMIN_PW);
  const keyFile = join(dir, "webhook-key");
  writeFileSync(keyFile, randomBytes(32).toString("base64"));
  // `database:` comes last, so an `extra` starting with an indented line (e.g. `  retentionDays: 1`) adds to it
  const yaml = (mode: string, extra: string) =>
    `auth:\n  mode: ${mode}\n  local:\n    bootstrapAdmin: admin\n    bootstrapPasswordFile: ${passwordFile}\nwebhooks:\n  encryptionKeyFile: ${keyFile}\ndatabase:\n  url: pglite:memory\n${extra}`;
  return {
    async env(mode = "local", extra = "", serverOptions?: Partial<ConsoleServerOptions>) {
      const { db } = await dbs.fresh();
      const clock = new TestClock();
      const server = await startConsole(yaml(mode, extra), {
        db,
        clock,
        ...(serverOptions ? { server: serverOptions } : {}),
      });
      await server.whenReady();
      const admin = browser(server);
      if (mode === "local") assert.equal((await login(admin, "admin", ADMIN_PW)).status, 200);
      return { server, store: new SqlStore(db), db, clock, admin };
    },
    async close() {
      await dbs.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
