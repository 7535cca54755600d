import assert from "node:assert/strict";
import http from "node:http";
import type net from "node:net";
import { after, test } from "node:test";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import { parseExposition } from "../../../../test/helpers/metrics-text.ts";
import { MetricRegistry } from "../metrics/store/registry.ts";
import { probeDns } from "../probes/dns.ts";
import { probeHttp } from "../probes/http.ts";
import { createIcmpProber } from "../probes/icmp.ts";
import { probeTcp } from "../probes/tcp.ts";
import { startDnsResponder } from "../probes/testdata/dns-responder.ts";
import { ExternalCheckRunner } from "./external-check-runner.ts";
import { type AssignmentServer, specMessage, startAssignmentServer } from "./testdata/assignment-server.ts";
import { cfg, cleanups, setup } from "./testdata/runner-setup.ts";

after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test("timeout is capped by checkers.external.timeout", async () => {
  const hang = http.createServer(() => {}); // never answers
  await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        hang.closeAllConnections();
        hang.close(() => r());
      }),
  );
  const url = `http://127.0.0.1:${(hang.address() as net.AddressInfo).port}/`;
  const s = await setup(cfg({ timeout: 100 }));
  s.server.set([
    specMessage({ name: "slow", kind: "url", address: url, check_type: "http", timeout_ns: 60e9 }),
  ]);
  await s.until(
    "fails at the capped timeout, long before the spec's 60 s",
    async () => (await s.value("svc_external_results_total", { target: "slow", result: "fail" })) >= 1,
  );
});

test("http and dns checks", async () => {
  const web = http.createServer((_q, r) => r.end("hello"));
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => web.close(() => r())));
  const dns = await startDnsResponder({ a: { "svc.example": "198.18.0.10" } });
  cleanups.push(() => dns.close());
  const s = await setup(cfg());
  s.server.set([
    specMessage({
      name: "site",
      kind: "url",
      address: `http://127.0.0.1:${(web.address() as net.AddressInfo).port}/`,
      check_type: "http",
      params_json: '{"bodyPattern":"hel+o"}',
    }),
    specMessage({
      name: "resolver",
      port: dns.port,
      check_type: "dns",
      params_json: '{"query":"svc.example"}',
    }),
    specMessage({
      name: "resolver-nx",
      port: dns.port,
      check_type: "dns",
      params_json: '{"query":"nope.example"}',
    }),
  ]);
  await s.until(
    "http ok",
    async () =>
      (await s.value("svc_external_results_total", {
        target: "site",
        target_kind: "url",
        result: "success",
      })) >= 1,
  );
  await s.until(
    "dns ok",
    async () =>
      (await s.value("svc_external_results_total", {
        target: "resolver",
        check_type: "dns",
        result: "success",
      })) >= 1,
  );
  await s.until(
    "dns nx",
    async () => (await s.value("svc_external_results_total", { target: "resolver-nx", result: "fail" })) >= 1,
  );
  assert.ok(dns.queries.some((q) => q.name === "svc.example"));
});

test("icmp checks record rtt and loss", skipUnless(needsRoot()), async () => {
  const icmp = createIcmpProber();
  cleanups.push(() => icmp.close());
  const server: AssignmentServer = await startAssignmentServer([
    specMessage({ name: "lo", check_type: "icmp", params_json: '{"count":2}' }),
  ]);
  const registry = new MetricRegistry();
  const runner = new ExternalCheckRunner({
    controllerAddress: `127.0.0.1:${server.port}`,
    agentId: () => "a",
    metricsRegistry: registry,
    metricsPrefix: "svc",
    sourceNode: "n",
    sourceZone: () => "z",
    probers: { tcp: { probe: probeTcp }, dns: { probe: probeDns }, http: { probe: probeHttp }, icmp },
    config: cfg(),
  });
  runner.start();
  cleanups.push(
    () => runner.stop(),
    () => server.close(),
  );
  const deadline = Date.now() + 5000;
  let samples = parseExposition(await registry.metrics());
  while (!samples.some((x) => x.name === "svc_external_packet_loss_ratio") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    samples = parseExposition(await registry.metrics());
  }
  assert.equal(samples.find((x) => x.name === "svc_external_packet_loss_ratio")?.value, 0);
  assert.ok((samples.find((x) => x.name === "svc_external_rtt_seconds_count")?.value ?? 0) >= 2);
});
