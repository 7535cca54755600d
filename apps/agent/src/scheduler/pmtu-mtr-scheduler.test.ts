import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { Peer } from "@svc/protocol";
import { EchoServer } from "../echo/echo-server.ts";
import { ProbeMetrics } from "../metrics/probe-metrics.ts";
import { ProbeScheduler, type ScheduledCheckers } from "./probe-scheduler.ts";

let web: http.Server;
let echo: EchoServer;
let webPort = 0;
let closedPort = 0;

before(async () => {
  web = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
  webPort = (web.address() as AddressInfo).port;
  echo = new EchoServer({ port: 0, bind4: "127.0.0.1", bind6: "::1" });
  await echo.start();
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
});
after(() => {
  web.close();
  echo.stop();
});

const off = { enabled: false, interval: 100, timeout: 80 };
function checkers(over: Partial<ScheduledCheckers> = {}): ScheduledCheckers {
  return {
    tcp: off,
    udp: { ...off, packets: 1 },
    icmp: off,
    dns: { ...off, hosts: [], resolvers: [] },
    http: { ...off, targets: [] },
    pmtu: { enabled: true, interval: 100, timeout: 200, size: 1400 },
    mtr: { cooldown: 60_000, maxHops: 4 },
    ...over,
  };
}

const peer = (nodeName: string, capabilities: string[], address = "127.0.0.1", httpPort = webPort): Peer => ({
  agentId: nodeName,
  nodeName,
  address,
  zone: "z1",
  labels: {},
  capabilities,
  httpPort,
  udpPort: echo.port,
});

async function until(what: string, cond: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 8000;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function setup(c: ScheduledCheckers, now?: () => number) {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z0" } });
  const mtr = { rounds: 2, intervalMs: 10, timeoutMs: 300, ...(now ? { now } : {}) };
  const scheduler = new ProbeScheduler({
    metrics,
    selfNodeName: "node-a",
    ports: { httpPort: webPort, grpcPort: echo.port },
    checkers: c,
    mtr,
  });
  const text = () => metrics.metrics();
  const count = async (re: RegExp) => Number((await text()).match(re)?.[1] ?? 0);
  return { metrics, scheduler, text, count };
}

test("pmtu runs per peer that advertises plane:pmtu (or no plane), IPv4 and IPv6; hot reload turns it off and on", async () => {
  const { scheduler, text, count } = setup(checkers());
  scheduler.setPeers([
    peer("node-b", ["plane:pmtu", "plane:mtr"]),
    peer("node-c", ["plane:tcp", "plane:mtr"]), // 2.4.x agent: no pmtu
    peer("node-d", [], "::1"), // pre-2.4.0: every plane
  ]);
  scheduler.start();
  try {
    const ok = (node: string) =>
      new RegExp(
        `^svc_pmtu_results_total\\{[^}]*destination_node="${node}"[^}]*result="success"\\} (\\d+)`,
        "m",
      );
    await until("pmtu node-b", async () => (await count(ok("node-b"))) >= 2);
    await until("pmtu node-d (IPv6)", async () => (await count(ok("node-d"))) >= 1);
    const t = await text();
    assert.match(t, /^svc_pmtu_bytes\{[^}]*destination_node="node-b"[^}]*\} 1400$/m);
    assert.match(t, /^svc_pmtu_probe_bytes\{[^}]*destination_node="node-d"[^}]*\} 1400$/m);
    assert.doesNotMatch(t, /destination_node="node-c"/);
    assert.deepEqual(
      scheduler.scheduled().filter((k) => k.startsWith("pmtu")),
      ["pmtu\u0000node-b", "pmtu\u0000node-d"],
    );

    scheduler.applyConfig(checkers({ pmtu: { enabled: false, interval: 100, timeout: 200, size: 1400 } }));
    assert.deepEqual(scheduler.scheduled(), []);
    assert.doesNotMatch(await text(), /^svc_pmtu_/m);

    scheduler.applyConfig(checkers({ pmtu: { enabled: true, interval: 150, timeout: 200, size: 0 } }));
    await until("pmtu again at size 0 (lo MTU)", async () =>
      /^svc_pmtu_bytes\{[^}]*destination_node="node-b"[^}]*\} 65535$/m.test(await text()),
    );
  } finally {
    await scheduler.stop();
  }
});

test("a failing tcp probe triggers one trace per cooldown; hops are recorded; the peer leaving removes them", async () => {
  let clock = 0;
  const { scheduler, text, count } = setup(
    checkers({ tcp: { enabled: true, interval: 100, timeout: 200 }, pmtu: { ...off, size: 0 } }),
    () => clock,
  );
  const triggered = /^svc_mtr_triggered_total\{[^}]*destination_node="node-b"[^}]*\} (\d+)$/m;
  const fails = (node: string) =>
    new RegExp(`^svc_tcp_results_total\\{[^}]*destination_node="${node}"[^}]*result="fail"\\} (\\d+)$`, "m");
  scheduler.setPeers([peer("node-b", [], "127.0.0.1", closedPort), peer("node-c", [])]);
  scheduler.start();
  try {
    await until("first trace recorded", async () => /^svc_mtr_hops\{[^}]*node-b/m.test(await text()));
    assert.equal(await count(triggered), 1);
    assert.match(
      await text(),
      /^svc_mtr_hop_rtt_seconds\{source_node="node-a",destination_node="node-b",hop_number="1",hop_ip="127.0.0.1"\} /m,
    );
    assert.deepEqual(
      scheduler.lastTrace("node-b")?.hops.map((h) => [h.number, h.ip, h.lossRatio]),
      [[1, "127.0.0.1", 0]],
    );
    // more failures inside the cooldown do not trace again
    const before = await count(fails("node-b"));
    await until("three more failures", async () => (await count(fails("node-b"))) >= before + 3);
    assert.equal(await count(triggered), 1);
    // the healthy peer never triggers
    assert.doesNotMatch(await text(), /^svc_mtr_\w+\{[^}]*destination_node="node-c"/m);

    clock += 60_000; // cooldown over: the next failure traces again
    await until("second trigger", async () => (await count(triggered)) === 2);

    scheduler.applyConfig(
      checkers({
        tcp: { enabled: true, interval: 100, timeout: 200 },
        pmtu: { ...off, size: 0 },
        mtr: { cooldown: 1, maxHops: 4 },
      }),
    );
    clock += 5;
    await until("shorter cooldown applied live", async () => (await count(triggered)) >= 3);

    scheduler.setPeers([peer("node-c", [])]);
    assert.doesNotMatch(await text(), /destination_node="node-b"/);
  } finally {
    await scheduler.stop();
  }
});
