import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError } from "@svc/core";
import { loadConsoleConfig, parseConsoleConfig } from "./load.ts";

const dir = join(import.meta.dirname, "testdata");

/** Each fixture states its expectation in leading comments: `# expect-ok` or one `# expect: <text>` per error. */
for (const name of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
  const text = readFileSync(join(dir, name), "utf8");
  const expected = [...text.matchAll(/^# expect: (.*)$/gm)].map((m) => m[1] ?? "");
  test(`fixture ${name}`, () => {
    if (text.startsWith("# expect-ok")) {
      const { config } = loadConsoleConfig(join(dir, name), {});
      assert.ok(Object.isFrozen(config.auth.session));
      return;
    }
    assert.ok(expected.length > 0, "fixture states what it expects");
    assert.throws(
      () => loadConsoleConfig(join(dir, name), {}),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        for (const want of expected) {
          assert.ok(
            e.issues.some((i) => i.includes(want)),
            `expected an issue containing ${JSON.stringify(want)}, got:\n${e.issues.join("\n")}`,
          );
        }
        return true;
      },
    );
  });
}

test("defaults follow the spec", () => {
  const { config } = parseConsoleConfig("", {});
  assert.equal(config.httpPort, 8080);
  assert.equal(config.metricsPort, 9091);
  assert.equal(config.auth.mode, "anonymous");
  assert.equal(config.auth.anonymous.role, "viewer");
  assert.equal(config.auth.defaultRole, "");
  assert.equal(config.auth.session.ttl, 12 * 3600_000);
  assert.equal(config.auth.session.idleTimeout, 3600_000);
  assert.equal(config.auth.session.cookieName, "__Host-svc_session");
  assert.equal(config.auth.session.secure, true);
  assert.deepEqual(config.auth.oidc.scopes, ["openid", "profile", "email", "groups"]);
  assert.equal(config.auth.oidc.usernameClaim, "preferred_username");
  assert.equal(config.auth.oidc.groupsClaim, "groups");
  assert.equal(config.controller.timeout, 10_000);
  assert.equal(config.prometheus.queryTimeout, 30_000);
  assert.equal(config.prometheus.maxRange, 24 * 3600_000);
  assert.equal(config.prometheus.maxResponseBytes, 8_388_608);
  assert.deepEqual(config.websocket, {
    maxConnections: 1024,
    maxConnectionsPerAddress: 256,
    maxConnectionsPerSubject: 32,
  });
  assert.equal(config.webhooks.alertPollInterval, 30_000);
  assert.equal(config.rateLimit.loginPerMinute, 5);
  assert.equal(config.kubernetesContext.enabled, false);
  assert.equal(config.database.retentionDays, 90);
  assert.equal(config.redis.dialTimeout, 5000);
  assert.equal(config.replicas, 1);
});

test("an unreadable file is an error naming the path", () => {
  assert.throws(
    () => loadConsoleConfig("/nonexistent/console.yaml", {}),
    /nonexistent\/console\.yaml: cannot read/,
  );
});

test("env SVC_LOG_LEVEL overrides and is named in errors", () => {
  assert.equal(parseConsoleConfig("logLevel: info\n", { SVC_LOG_LEVEL: "WARN" }).config.logLevel, "warn");
  assert.throws(
    () => parseConsoleConfig("", { SVC_LOG_LEVEL: "loud" }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.issues.some((i) => i.startsWith("logLevel:") && i.includes("SVC_LOG_LEVEL")),
  );
});

test("a YAML syntax error names its line and column", () => {
  assert.throws(
    () => parseConsoleConfig("# comment\nauth: [unclosed\n", {}),
    (e: unknown) => e instanceof ConfigError && e.issues.some((i) => /^line 3, column 1: /.test(i)),
  );
});

test("a duplicate key is an error", () => {
  assert.throws(() => parseConsoleConfig("httpPort: 1\nhttpPort: 2\n", {}), ConfigError);
});

test("console.* keys (spec §8.4) load without warnings; the pre-2.5 top-level names load with one each", () => {
  const modern = parseConsoleConfig(
    "console:\n  replicas: 1\n  auth:\n    mode: anonymous\n  enabled: true\n",
    {},
  );
  assert.deepEqual(modern.warnings, []);
  assert.equal(modern.config.auth.mode, "anonymous");
  const legacy = parseConsoleConfig("auth:\n  mode: anonymous\nprometheus:\n  url: http://p:9090\n", {});
  assert.equal(legacy.config.prometheus.url, "http://p:9090");
  assert.deepEqual(legacy.warnings, [
    "prometheus: deprecated key name, use console.prometheus (the old name is accepted until the next release)",
    "auth: deprecated key name, use console.auth (the old name is accepted until the next release)",
  ]);
  // both forms of one file give the same configuration
  const dir = join(import.meta.dirname, "testdata");
  assert.deepEqual(
    loadConsoleConfig(join(dir, "good-console-section.yaml"), {}).config,
    loadConsoleConfig(join(dir, "good-full.yaml"), {}).config,
  );
});

test("database.urlEnv and redis.urlEnv name environment variables", async () => {
  const { databaseUrl } = await import("../main.ts");
  const { redisUrl } = await import("../shared/redis.ts");
  const { config } = parseConsoleConfig(
    "database:\n  urlEnv: SVC_TEST_DSN\nredis:\n  urlEnv: SVC_TEST_REDIS\nconsole:\n  replicas: 2\n",
    {},
  );
  const env = { SVC_TEST_DSN: " postgres://db/svc\n", SVC_TEST_REDIS: "redis://r:6379" };
  assert.equal(await databaseUrl(config, env), "postgres://db/svc");
  assert.equal(await redisUrl(config, env), "redis://r:6379");
  await assert.rejects(
    databaseUrl(config, {}),
    /database.urlEnv: the environment variable SVC_TEST_DSN is not set/,
  );
});

test("database.urlFile and redis.urlFile: the mounted secret's content, trimmed (the chart's path)", async () => {
  const { databaseUrl } = await import("../main.ts");
  const { redisUrl } = await import("../shared/redis.ts");
  const secrets = mkdtempSync(join(tmpdir(), "svc-console-secret-"));
  try {
    // a Secret volume's file, as kubectl create secret --from-file writes it (trailing newline)
    writeFileSync(join(secrets, "dsn"), "postgres://svc@db:5432/svc?sslmode=require\n");
    writeFileSync(join(secrets, "redis"), "  redis://r:6379/0 \n");
    const { config } = parseConsoleConfig(
      `database:\n  urlFile: ${join(secrets, "dsn")}\nredis:\n  urlFile: ${join(secrets, "redis")}\nconsole:\n  replicas: 2\n`,
      {},
    );
    assert.equal(await databaseUrl(config, {}), "postgres://svc@db:5432/svc?sslmode=require");
    assert.equal(await redisUrl(config, {}), "redis://r:6379/0");
    const missing = parseConsoleConfig(`database:\n  urlFile: ${join(secrets, "absent")}\n`, {}).config;
    await assert.rejects(databaseUrl(missing, {}), /database.urlFile: cannot read .*absent \(ENOENT\)/);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
});
