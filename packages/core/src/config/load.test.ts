import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, defaultConfig, loadConfig, parseConfig } from "./load.ts";

const dir = new URL("./testdata/", import.meta.url).pathname;
const fixtures = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
const HOST = "test-host";

function annotations(text: string, tag: string): string[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`# ${tag}: `))
    .map((l) => l.slice(`# ${tag}: `.length));
}

function load(file: string, env: NodeJS.ProcessEnv = {}) {
  return loadConfig({ path: join(dir, file), env, hostname: HOST });
}

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    for (const i of e.issues) assert.ok(e.message.includes(i), "message lists every issue");
    return e.issues;
  }
  assert.fail("expected a ConfigError");
}

for (const file of fixtures.filter((f) => f.startsWith("bad-"))) {
  test(`fixture ${file} is rejected with exactly its expected issues, all at once`, () => {
    const expected = annotations(readFileSync(join(dir, file), "utf8"), "expect");
    assert.ok(expected.length > 0, "fixture declares its expected issues");
    const issues = issuesOf(() => load(file));
    for (const want of expected) {
      assert.ok(
        issues.some((i) => i.startsWith(want)),
        `missing issue starting with ${JSON.stringify(want)}; got:\n${issues.join("\n")}`,
      );
    }
    assert.equal(issues.length, expected.length, `issues:\n${issues.join("\n")}`);
  });
}

for (const file of fixtures.filter((f) => f.startsWith("good-") || f.startsWith("warn-"))) {
  test(`fixture ${file} loads with exactly its expected warnings`, () => {
    const expected = annotations(readFileSync(join(dir, file), "utf8"), "warn");
    const { config, warnings } = load(file);
    assert.ok(Object.isFrozen(config));
    for (const want of expected) {
      assert.ok(
        warnings.some((w) => w.startsWith(want)),
        `missing warning ${want}; got:\n${warnings.join("\n")}`,
      );
    }
    assert.equal(warnings.length, expected.length, `warnings:\n${warnings.join("\n")}`);
  });
}

test("good-full: every value is parsed, durations in ms, logLevel lower-cased", () => {
  const { config: c } = load("good-full.yaml");
  assert.equal(c.logLevel, "debug");
  assert.equal(c.logFormat, "text");
  assert.equal(c.checkers.tcp.interval, 90_000);
  assert.equal(c.checkers.tcp.timeout, 250);
  assert.equal(c.checkers.mtr.cooldown, 7_200_000);
  assert.equal(c.checkers.external.timeout, 0);
  assert.deepEqual(c.checkers.http.targets[1], {
    url: "http://10.0.0.1:8080/",
    method: "GET",
    expectStatus: 0,
    bodyPattern: "",
    insecureSkipVerify: false,
  });
  assert.equal(c.checkers.http.targets[0]?.bodyPattern, "^ok\\s*$");
  assert.deepEqual(c.topology, {
    mode: "sparse",
    sparse: { ringDegree: 1, zoneChords: 64, autoThreshold: 50 },
  });
  assert.equal(c.agent.advertiseAddress, "fd00:198:18::5");
  assert.equal(c.controller.prometheusSD.enabled, false);
});

test("any agent.tls file switches TLS on", () => {
  const { config } = load("good-tls-implied.yaml");
  assert.equal(config.agent.tls.enabled, true);
  assert.equal(config.agent.bootstrapTokenFile, "/token");
});

test("no path and no SVC_CONFIG gives the defaults of spec 8.2", () => {
  const { config: c, warnings } = loadConfig({ env: {}, hostname: HOST });
  assert.deepEqual(warnings, []);
  assert.deepEqual(c, defaultConfig(HOST));
  assert.equal(c.metricsPrefix, "svc");
  assert.deepEqual([c.httpPort, c.metricsPort, c.grpcPort], [8080, 9091, 9090]);
  assert.equal(c.logLevel, "info");
  assert.equal(c.logFormat, "json");
  assert.equal(c.failureDomainLabel, "topology.kubernetes.io/zone");
  assert.equal(c.controllerAddress, "svc-controller:9090");
  assert.equal(c.agent.nodeName, HOST);
  assert.equal(c.controller.agentTtl, 30_000);
  assert.equal(c.controller.leaderElection, true);
  assert.equal(c.controller.prometheusSD.enabled, true);
  assert.equal(c.controller.externalGateway.port, 9443);
  assert.deepEqual(c.checkers.udp, { enabled: true, interval: 5000, timeout: 250, packets: 5 });
  assert.deepEqual(c.checkers.pmtu, { enabled: true, interval: 60_000, timeout: 500, size: 0 });
  assert.deepEqual(c.checkers.dns.hosts, ["kubernetes.default.svc.cluster.local"]);
  assert.equal(c.checkers.http.enabled, false);
  assert.deepEqual(c.checkers.mtr, { cooldown: 60_000, maxHops: 30 });
  assert.equal(c.checkers.external.maxTargets, 100);
  assert.equal(c.checkers.external.timeout, 10_000);
  assert.deepEqual(c.topology, { mode: "full", sparse: { ringDegree: 2, zoneChords: 2, autoThreshold: 0 } });
});

test("the loaded config is deeply frozen", () => {
  const { config } = load("good-full.yaml");
  assert.throws(() => {
    (config.checkers.udp as { packets: number }).packets = 1;
  }, TypeError);
  assert.throws(() => {
    (config.checkers.dns.hosts as string[]).push("x");
  }, TypeError);
});

test("SVC_CONFIG names the file when no path is given; an explicit path wins", () => {
  const env = { SVC_CONFIG: join(dir, "good-full.yaml") };
  assert.equal(loadConfig({ env, hostname: HOST }).config.httpPort, 18080);
  assert.equal(
    loadConfig({ env, path: join(dir, "good-tls-implied.yaml"), hostname: HOST }).config.httpPort,
    8080,
  );
});

test("a missing file is an error naming the path", () => {
  const path = join(tmpdir(), "svc-no-such-config.yaml");
  const issues = issuesOf(() => loadConfig({ path, env: {} }));
  assert.equal(issues.length, 1);
  assert.match(issues[0] ?? "", /svc-no-such-config\.yaml: cannot read config file \(ENOENT\)/);
});

test("an empty or comment-only file is ignored with a warning", () => {
  const tmp = mkdtempSync(join(tmpdir(), "svc-config-"));
  for (const text of ["", "   \n\n", "# nothing here\n  # indented comment\n"]) {
    const path = join(tmp, "config.yaml");
    writeFileSync(path, text);
    const { config, warnings } = loadConfig({ path, env: {}, hostname: HOST });
    assert.deepEqual(config, defaultConfig(HOST));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /config\.yaml: empty configuration ignored/);
  }
});

test("YAML syntax errors give line and column", () => {
  const issues = issuesOf(() => parseConfig("checkers:\n  udp: [1, 2\n", {}, HOST));
  assert.match(issues[0] ?? "", /^line \d+, column \d+: /);
  const dup = issuesOf(() => parseConfig("httpPort: 1\nhttpPort: 2\n", {}, HOST));
  assert.match(dup[0] ?? "", /^line 2, column 1: Map keys must be unique/);
});

test("env overrides win over the file and are validated with their key path", () => {
  const env = {
    SVC_METRICS_PREFIX: "net",
    SVC_LOG_LEVEL: "WARN",
    SVC_LOG_FORMAT: "text",
    SVC_CONTROLLER_ADDRESS: "ctl:1",
    SVC_FAILURE_DOMAIN_LABEL: "zone",
    SVC_NODE_NAME: "n7",
    SVC_ADVERTISE_ADDRESS: "198.18.0.7",
    SVC_ZONE: "z9",
    SVC_POD_IP: "198.18.0.8",
  };
  const { config: c } = load("good-full.yaml", env);
  assert.equal(c.metricsPrefix, "net");
  assert.equal(c.logLevel, "warn");
  assert.equal(c.logFormat, "text");
  assert.equal(c.controllerAddress, "ctl:1");
  assert.equal(c.failureDomainLabel, "zone");
  assert.equal(c.agent.nodeName, "n7");
  assert.equal(c.agent.advertiseAddress, "198.18.0.7");
  assert.equal(c.agent.zone, "z9");

  const issues = issuesOf(() =>
    loadConfig({
      env: { SVC_LOG_FORMAT: "xml", SVC_ADVERTISE_ADDRESS: "127.0.0.1", SVC_METRICS_PREFIX: "1x" },
    }),
  );
  assert.deepEqual(issues.sort(), [
    'agent.advertiseAddress: must not be a loopback address, got "127.0.0.1" (from SVC_ADVERTISE_ADDRESS)',
    'logFormat: must be one of json|text, got "xml" (from SVC_LOG_FORMAT)',
    'metricsPrefix: must start with a letter, then letters, digits or underscores, got "1x" (from SVC_METRICS_PREFIX)',
  ]);
});

test("SVC_POD_IP is not config: advertiseAddress stays empty; empty env values are ignored", () => {
  const { config } = loadConfig({ env: { SVC_POD_IP: "198.18.0.9", SVC_ZONE: "" }, hostname: HOST });
  assert.equal(config.agent.advertiseAddress, "");
  assert.equal(config.agent.zone, "");
});

test("agent.nodeName defaults to the hostname, also when set empty", () => {
  assert.equal(parseConfig("agent:\n  nodeName: ''\n", {}, "h9").config.agent.nodeName, "h9");
  assert.equal(parseConfig("", {}, "h9").config.agent.nodeName, "h9");
});

test("the root must be a mapping", () => {
  assert.deepEqual(
    issuesOf(() => parseConfig("- a\n- b\n", {}, HOST)),
    ["(root): must be a mapping, got a list"],
  );
});
