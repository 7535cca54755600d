import assert from "node:assert/strict";
import { after, test } from "node:test";
import { specMessage } from "./testdata/assignment-server.ts";
import { cfg, cleanups, setup, tcpServer } from "./testdata/runner-setup.ts";

after(async () => {
  for (const c of cleanups.reverse()) await c();
});
test("tcp checks run continuously with the external label set; failures are counted", async () => {
  const t = await tcpServer();
  const closed = await tcpServer();
  const s = await setup(cfg());
  s.server.set([specMessage({ name: "open", port: t.port }), specMessage({ name: "shut", port: 1 })]);
  await s.until(
    "3 successes",
    async () => (await s.value("svc_external_results_total", { target: "open", result: "success" })) >= 3,
  );
  await s.until(
    "a failure",
    async () => (await s.value("svc_external_results_total", { target: "shut", result: "fail" })) >= 1,
  );
  const labels = (await s.samples()).find((x) => x.name === "svc_external_duration_seconds_count")?.labels;
  assert.deepEqual(Object.keys(labels ?? {}).sort(), [
    "check_type",
    "source_node",
    "source_zone",
    "target",
    "target_kind",
  ]);
  assert.equal(labels?.source_node, "edge-1");
  assert.equal(labels?.check_type, "tcp");
  assert.ok(t.accepted() >= 3);
  assert.ok((await s.value("svc_external_rtt_seconds_count", { target: "open" })) >= 3);
  assert.equal(closed.accepted(), 0);
  assert.deepEqual(s.server.subscribes, ["agent-x"]);
});

test("allowlist and denylist are enforced by the agent: nothing is probed outside them", async () => {
  const t = await tcpServer();
  const s = await setup(
    cfg({ allowedCidrs: ["198.18.0.0/15", "127.0.0.0/8"], deniedCidrs: ["127.0.0.1/32"] }),
  );
  s.server.set([specMessage({ name: "denied", port: t.port })]);
  await s.until(
    "denied cidr",
    async () => (await s.value("svc_external_denied_total", { reason: "cidr" })) >= 2,
  );
  s.runner.applyConfig(cfg({ allowedCidrs: ["198.18.0.0/15"] }));
  const before = await s.value("svc_external_denied_total", { reason: "cidr" });
  await s.until(
    "outside allowlist",
    async () => (await s.value("svc_external_denied_total", { reason: "cidr" })) >= before + 2,
  );
  assert.equal(t.accepted(), 0);
  assert.equal(await s.value("svc_external_results_total", {}), 0);
  // hot reload admits it
  s.runner.applyConfig(cfg());
  await s.until(
    "runs after reload",
    async () => (await s.value("svc_external_results_total", { result: "success" })) >= 1,
  );
});

test("host names are resolved first: failure counts resolve; a name resolving outside counts cidr", async () => {
  const t = await tcpServer();
  const names: Record<string, string[]> = {
    "svc.test": ["127.0.0.1"],
    "far.test": ["127.0.0.1", "198.18.0.1"],
  };
  const lookup = async (h: string) => {
    const a = names[h];
    if (!a) throw new Error(`getaddrinfo ENOTFOUND ${h}`);
    return a;
  };
  const s = await setup(cfg(), lookup);
  s.server.set([
    specMessage({ name: "good", address: "svc.test", port: t.port }),
    specMessage({ name: "missing", address: "missing.test", port: t.port }),
    specMessage({ name: "far", address: "far.test", port: t.port }),
  ]);
  await s.until(
    "resolved success",
    async () => (await s.value("svc_external_results_total", { target: "good", result: "success" })) >= 1,
  );
  await s.until(
    "resolve denied",
    async () => (await s.value("svc_external_denied_total", { target: "missing", reason: "resolve" })) >= 1,
  );
  await s.until(
    "cidr denied",
    async () => (await s.value("svc_external_denied_total", { target: "far", reason: "cidr" })) >= 1,
  );
});

test("disabled: nothing runs, each due run counts denied disabled; enabling by reload starts probing", async () => {
  const t = await tcpServer();
  const s = await setup(cfg({ enabled: false }));
  s.server.set([specMessage({ name: "x", port: t.port })]);
  await s.until(
    "disabled",
    async () => (await s.value("svc_external_denied_total", { reason: "disabled" })) >= 2,
  );
  assert.equal(t.accepted(), 0);
  s.runner.applyConfig(cfg());
  await s.until("probing", async () => t.accepted() >= 1);
});

test("maxTargets keeps the first targets in assignment order and warns about the rest", async () => {
  const t = await tcpServer();
  const s = await setup(cfg({ maxTargets: 2 }));
  const m = (name: string, check_type = "tcp") =>
    specMessage({ name, port: t.port, check_type, interval_ns: 10e9 });
  s.server.set([m("a"), m("b"), m("a", "icmp"), m("c"), m("d")]);
  await s.until("assignment applied", async () => s.runner.running().length > 0);
  assert.deepEqual(
    s.runner.running().map((x) => `${x.target.name}/${x.checkType}`),
    ["a/tcp", "b/tcp", "a/icmp"],
  );
  assert.ok(s.logs.some((l) => /maxTargets/.test(l)));
  s.runner.applyConfig(cfg({ maxTargets: 3 }));
  assert.deepEqual(
    s.runner.running().map((x) => x.target.name),
    ["a", "b", "a", "c"],
  );
});

test("series of a removed spec are deleted", async () => {
  const t = await tcpServer();
  const s = await setup(cfg());
  s.server.set([specMessage({ name: "keep", port: t.port }), specMessage({ name: "drop", port: t.port })]);
  await s.until(
    "both ran",
    async () =>
      (await s.value("svc_external_results_total", { target: "drop" })) >= 1 &&
      (await s.value("svc_external_results_total", { target: "keep" })) >= 1,
  );
  s.server.set([specMessage({ name: "keep", port: t.port })]);
  await s.until("drop series gone", async () => !(await s.samples()).some((x) => x.labels.target === "drop"));
  assert.ok((await s.samples()).some((x) => x.labels.target === "keep"));
});
