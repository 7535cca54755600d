import assert from "node:assert/strict";
import dgram from "node:dgram";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Controller, testConfig, waitUntil } from "@svc/controller";
import { TargetPolicy } from "../external/target-policy.ts";
import { RegistrationClient } from "../registration/client.ts";
import { defaultProbers } from "../scheduler/probers.ts";
import { AgentTaskRunner } from "./task-runner.ts";

// Real controller, real agents (RegistrationClient + AgentTaskRunner), real tcp/http and udp echo servers.
const fast = {
  heartbeatIntervalMs: 200,
  backoff: { initialMs: 50, maxMs: 200, jitter: 0 },
  callTimeoutMs: 1000,
};
const c = new Controller({
  config: testConfig(),
  version: { version: "2.5.0", commit: "t" },
  grpcHost: "127.0.0.1",
  httpHost: "127.0.0.1",
  allowLoopbackAgents: true,
  peerDebounceMs: 20,
});
const web = http.createServer((req, res) => res.writeHead(req.url === "/healthz" ? 200 : 404).end("ok"));
const echo = dgram.createSocket("udp4");
echo.on("message", (msg, from) => echo.send(msg, from.port, from.address));
const clients: RegistrationClient[] = [];
let runner: AgentTaskRunner;
let closedPort = 0;
const loopbackOnly = new TargetPolicy({
  enabled: true,
  allowedCidrs: ["127.0.0.0/8"],
  deniedCidrs: [],
  maxTargets: 100,
  timeout: 0,
});

function agent(nodeName: string, ports: { httpPort: number; udpPort: number }, capabilities: string[]) {
  const r = new RegistrationClient({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    nodeName,
    advertiseAddress: "127.0.0.1",
    zone: `zone-${nodeName}`,
    labels: {},
    capabilities,
    ports: { ...ports, metricsPort: 0 },
    version: "2.5.0",
    ...fast,
  });
  clients.push(r);
  r.start();
  return r;
}

before(async () => {
  await c.start();
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => echo.bind(0, "127.0.0.1", r));
  const spare = http.createServer();
  await new Promise<void>((r) => spare.listen(0, "127.0.0.1", r));
  closedPort = (spare.address() as AddressInfo).port;
  await new Promise((r) => spare.close(r));
  const webPort = (web.address() as AddressInfo).port;
  const caps = ["plane:tcp", "plane:udp", "plane:icmp", "plane:pmtu", "plane:dns", "plane:http", "plane:mtr"];
  const a = agent("node-a", { httpPort: 1, udpPort: 1 }, [...caps, "external-checks"]);
  agent("node-b", { httpPort: webPort, udpPort: echo.address().port }, caps);
  agent("node-c", { httpPort: closedPort, udpPort: closedPort }, caps);
  runner = new AgentTaskRunner({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    agentId: () => a.agentId(),
    registered: () => a.ready(),
    ports: { httpPort: 1, udpPort: 1 },
    // external destinations: loopback only (the agent's checkers.external allowlist)
    admitExternal: (task) => loopbackOnly.admit(task.address),
    probers: {
      ...defaultProbers(),
      icmp: { probe: async () => ({ ok: true, rtts: [1, 3], lossRatio: 0 }) },
    },
    backoff: fast.backoff,
  });
  runner.start();
  await waitUntil(
    () => c.registry.size === 3 && c.tasks.hasStream(a.agentId()),
    "agents registered, task stream open",
  );
});
after(async () => {
  await runner.stop();
  for (const r of clients) await r.stop();
  await c.stop();
  web.close();
  echo.close();
});

interface Result {
  success: boolean;
  error?: string;
  destination: string;
  destZone: string;
  duration: number;
  details: Record<string, unknown>;
}

async function check(body: Record<string, unknown>): Promise<Result> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/diagnostics?timeout=5`, {
    method: "POST",
    body: JSON.stringify({ source: "node-a", destination: "node-b", ...body }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as Result;
}

test("tcp reaches the destination agent's reported httpPort; a closed port fails", async () => {
  const ok = await check({ type: "tcp" });
  assert.equal(ok.success, true, ok.error);
  assert.equal(ok.destZone, "zone-node-b");
  assert.equal(ok.details.port, (web.address() as AddressInfo).port);
  assert.ok(Number.isInteger(ok.details.rtt) && (ok.details.rtt as number) > 0);
  assert.ok(Number.isInteger(ok.duration) && ok.duration > 0);
  const refused = await check({ type: "tcp", destination: "node-c" });
  assert.equal(refused.success, false);
  assert.match(refused.error ?? "", /ECONNREFUSED/);
});

test("udp to the echo at the reported udpPort; http to /healthz; dns with params.query", async () => {
  const udp = await check({ type: "udp" });
  assert.equal(udp.success, true, udp.error);
  assert.equal(udp.details.lossRatio, 0);
  const web = await check({ type: "http" });
  assert.equal(web.success, true, web.error);
  assert.equal(web.details.statusCode, 200);
  const missing = await check({ type: "http", params: { url: `http://127.0.0.1:${closedPort}/` } });
  assert.equal(missing.success, false);
  const dns = await check({ type: "dns", params: { query: "localhost" } });
  assert.equal(dns.success, true, dns.error);
  assert.equal(dns.details.query, "localhost");
});

test("icmp through the injected prober reports rtt in ns and lossRatio", async () => {
  const r = await check({ type: "icmp" });
  assert.equal(r.success, true);
  assert.equal(r.details.rtt, 2_000_000);
  assert.equal(r.details.lossRatio, 0);
});

test("mtr traces the path (spec 2.5 shape); pmtu reads the size that crossed to the echo port", async () => {
  const mtr = await check({
    type: "mtr",
    destination: "far",
    destinationKind: "external",
    destinationAddress: "127.0.0.1",
    params: { rounds: 2 },
  });
  assert.equal(mtr.success, true, mtr.error);
  assert.equal(mtr.destination, "far", "an external destination is reported by name");
  assert.equal(mtr.details.target, "127.0.0.1");
  const hops = mtr.details.hops as { number: number; ip: string; rtt: number; lossRatio: number }[];
  assert.equal(hops.length, 1, "loopback is one hop");
  assert.equal(hops[0]?.number, 1);
  assert.equal(hops[0]?.ip, "127.0.0.1");
  assert.ok(Number.isInteger(hops[0]?.rtt) && (hops[0]?.rtt ?? 0) > 0);
  assert.equal(hops[0]?.lossRatio, 0);
  const pmtu = await check({ type: "pmtu", params: { size: 1400 } });
  assert.equal(pmtu.success, true, pmtu.error);
  assert.deepEqual(
    { reading: pmtu.details.reading, pmtuBytes: pmtu.details.pmtuBytes, probeBytes: pmtu.details.probeBytes },
    { reading: "ok", pmtuBytes: 1400, probeBytes: 1400 },
  );
  const closed = await check({ type: "pmtu", destination: "node-c", params: { size: 1400 } });
  assert.equal(closed.success, false, "nothing crosses to a closed port");
});
