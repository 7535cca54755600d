import assert from "node:assert/strict";
import dgram from "node:dgram";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { Peer } from "@svc/protocol";
import { CoalescingClock } from "../clock/probe-clock.ts";
import { VirtualTimers } from "../clock/testdata/virtual-timers.ts";
import { ProbeMetrics } from "../metrics/probe-metrics.ts";
import { type DnsResponder, startDnsResponder } from "../probes/testdata/dns-responder.ts";
import {
  ProbeScheduler,
  type ScheduledCheckers,
  type ProbeScheduler as Scheduler,
} from "./probe-scheduler.ts";
import type { IcmpProber } from "./probers.ts";

let web: http.Server;
let echo: dgram.Socket;
let resolver: DnsResponder;
let webPort = 0;
let echoPort = 0;

before(async () => {
  web = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
  webPort = (web.address() as AddressInfo).port;
  echo = dgram.createSocket("udp4");
  echo.on("message", (msg, rinfo) => echo.send(msg, rinfo.port, rinfo.address));
  await new Promise<void>((r) => echo.bind(0, "127.0.0.1", () => r()));
  echoPort = echo.address().port;
  resolver = await startDnsResponder({ a: { "svc-api": "198.18.0.10" } });
});

after(async () => {
  web.closeAllConnections();
  web.close();
  echo.close();
  await resolver.close();
});

const fast = { enabled: true, interval: 100, timeout: 80 };
function checkers(over: Partial<ScheduledCheckers> = {}): ScheduledCheckers {
  return {
    tcp: fast,
    udp: { ...fast, timeout: 40, packets: 2 },
    icmp: fast,
    dns: { ...fast, hosts: ["svc-api"], resolvers: [`127.0.0.1:${resolver.port}`] },
    http: {
      ...fast,
      targets: [
        {
          url: `http://127.0.0.1:${webPort}/healthz`,
          method: "GET",
          expectStatus: 0,
          bodyPattern: "",
          insecureSkipVerify: false,
        },
      ],
    },
    ...over,
  };
}

const peer = (nodeName: string, capabilities: string[], ports = true): Peer => ({
  agentId: nodeName,
  nodeName,
  address: "127.0.0.1",
  zone: "z1",
  labels: {},
  capabilities,
  ...(ports ? { httpPort: webPort, udpPort: echoPort } : {}),
});

/** A slow icmp stand-in (icmp is another component): 250 ms per probe, counting overlap per address. */
class SlowIcmp implements IcmpProber {
  running = 0;
  maxRunning = 0;
  calls = 0;
  async probe() {
    this.calls++;
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((r) => setTimeout(r, 250));
    this.running--;
    return { ok: true, rtts: [0.1], lossRatio: 0 };
  }
}

async function until(what: string, cond: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function setup(icmp = new SlowIcmp()) {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z0" } });
  const scheduler: Scheduler = new ProbeScheduler({
    metrics,
    selfNodeName: "node-a",
    ports: { httpPort: webPort, grpcPort: echoPort },
    checkers: checkers(),
    probers: { icmp },
  });
  return { metrics, scheduler, icmp };
}

const has = async (m: ProbeMetrics, re: RegExp) => re.test(await m.metrics());
const series = (plane: string, node: string) =>
  new RegExp(
    `^svc_${plane}_results_total\\{source_node="node-a",destination_node="${node}".*result="success"`,
    "m",
  );

test("probes every other peer on the planes it runs, plus dns and http", async () => {
  const { metrics, scheduler, icmp } = setup();
  const peers = [
    peer("node-a", []),
    peer("node-b", ["plane:tcp", "plane:udp", "plane:mtr"]),
    peer("node-c", ["plane:tcp", "plane:mtr"], false), // no ports reported: our own ports are the fallback
    peer("node-d", []), // pre-2.4.0: runs every plane
  ];
  scheduler.setPeers(peers);
  scheduler.start();
  try {
    for (const [plane, node] of [
      ["tcp", "node-b"],
      ["tcp", "node-c"],
      ["tcp", "node-d"],
      ["udp", "node-b"],
      ["udp", "node-d"],
      ["icmp", "node-d"],
    ]) {
      await until(`${plane} ${node}`, () => has(metrics, series(plane ?? "", node ?? "")));
    }
    await until("dns", () => has(metrics, /^svc_dns_results_total\{.*result="success"\} [1-9]/m));
    await until("http", () =>
      has(metrics, /^svc_http_results_total\{.*status_code="200".*result="success"\} [1-9]/m),
    );
    await until("icmp overlap chance", () => icmp.calls >= 2 && scheduler.skippedTicks > 0);
    const text = await metrics.metrics();
    assert.doesNotMatch(text, /destination_node="node-a"/);
    assert.doesNotMatch(text, /svc_udp_results_total\{[^}]*destination_node="node-c"/);
    assert.doesNotMatch(text, /svc_icmp_results_total\{[^}]*destination_node="node-b"/);
    assert.equal(icmp.maxRunning, 1, "runs of one checker/peer never overlap");
    assert.ok(scheduler.latenessSamples().length > 0);
    assert.ok(scheduler.latenessSummary().count > 0);
  } finally {
    await scheduler.stop();
  }
});

test("departed and unplanned peers lose all their series; planned pairs are marked intended", async () => {
  const { metrics, scheduler } = setup();
  scheduler.setPeers([peer("node-b", []), peer("node-c", [])]);
  scheduler.start();
  try {
    await until(
      "both probed",
      async () => (await has(metrics, series("udp", "node-b"))) && has(metrics, series("tcp", "node-c")),
    );
    scheduler.setPeers([peer("node-c", [])]);
    assert.doesNotMatch(await metrics.metrics(), /destination_node="node-b"/);
    scheduler.setPeers([peer("node-b", []), peer("node-c", [])], ["node-b"]);
    const text = await metrics.metrics();
    assert.doesNotMatch(text, /destination_node="node-c"/);
    assert.match(text, /^svc_probe_intended\{[^}]*destination_node="node-b"[^}]*plane="tcp"\} 1$/m);
    await until("node-b probed again", () => has(metrics, series("tcp", "node-b")));
    assert.deepEqual(
      scheduler.scheduled().filter((k) => k.includes("node-c")),
      [],
    );
  } finally {
    await scheduler.stop();
  }
});

test("hot reload: a disabled checker stops and its series go; re-enabled it resumes", async () => {
  const { metrics, scheduler } = setup();
  scheduler.setPeers([peer("node-b", [])]);
  scheduler.start();
  try {
    await until("udp", () => has(metrics, series("udp", "node-b")));
    scheduler.applyConfig(
      checkers({ udp: { ...fast, enabled: false, packets: 2 }, tcp: { ...fast, interval: 150 } }),
    );
    assert.doesNotMatch(await metrics.metrics(), /^svc_udp_/m);
    assert.ok(scheduler.scheduled().every((k) => !k.startsWith("udp")));
    await new Promise((r) => setTimeout(r, 300));
    assert.doesNotMatch(await metrics.metrics(), /^svc_udp_/m, "no udp probe after disable");
    await until("tcp still probed at the new interval", () => has(metrics, series("tcp", "node-b")));
    scheduler.applyConfig(checkers());
    await until("udp resumes", () => has(metrics, series("udp", "node-b")));
  } finally {
    await scheduler.stop();
  }
});

test("stop leaves no timers and no in-flight probes", async () => {
  const settle = () => new Promise((r) => setTimeout(r, 20));
  const timers = () => process.getActiveResourcesInfo().filter((x) => x === "Timeout").length;
  await settle();
  const before = timers();
  const { metrics, scheduler, icmp } = setup();
  scheduler.setPeers([peer("node-b", []), peer("node-c", [])]);
  scheduler.start();
  await until("icmp in flight", () => icmp.running > 0);
  await scheduler.stop();
  assert.equal(icmp.running, 0, "stop awaited the in-flight probe");
  await settle();
  assert.equal(timers(), before);
  const snapshot = await metrics.metrics();
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(await metrics.metrics(), snapshot, "nothing runs after stop");
});

test("a peer whose zone changed is relabelled, not duplicated", async () => {
  const { metrics, scheduler } = setup();
  scheduler.setPeers([peer("node-b", ["plane:tcp"])]);
  scheduler.start();
  try {
    await until("tcp z1", () => has(metrics, /destination_zone="z1",result="success"/));
    scheduler.setPeers([{ ...peer("node-b", ["plane:tcp"]), zone: "z5" }]);
    assert.doesNotMatch(await metrics.metrics(), /destination_zone="z1"/);
    await until("tcp z5", () => has(metrics, /destination_zone="z5",result="success"/));
    assert.doesNotMatch(await metrics.metrics(), /destination_zone="z1"/);
  } finally {
    await scheduler.stop();
  }
});

test("the peers of one checker are spread over the interval, not probed in one burst (virtual time)", async () => {
  // judged on the scheduler's clock: a loaded machine that runs late must not bunch the starts it measures
  const timers = new VirtualTimers();
  const clock = new CoalescingClock({ timers });
  const t0 = clock.now();
  const firstCall = new Map<string, number>();
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z0" } });
  const off = { ...fast, enabled: false };
  const scheduler = new ProbeScheduler({
    metrics,
    selfNodeName: "node-a",
    ports: { httpPort: webPort, grpcPort: echoPort },
    clock,
    checkers: {
      ...checkers(),
      udp: { ...off, packets: 1 },
      dns: { ...off, hosts: [], resolvers: [] },
      http: { ...off, targets: [] },
      tcp: { ...fast, interval: 1000 },
    },
    probers: {
      tcp: {
        probe: async (t) => {
          if (!firstCall.has(t.address)) firstCall.set(t.address, clock.now() - t0);
          return { ok: true, connectMs: 0.1, totalMs: 0.2 };
        },
      },
    },
  });
  const peers = Array.from({ length: 20 }, (_, i) => ({
    ...peer(`n${i}`, ["plane:tcp"]),
    address: `198.18.0.${i + 1}`,
  }));
  scheduler.setPeers(peers);
  scheduler.start();
  try {
    for (let i = 0; i < 1000 && firstCall.size < 20; i++) {
      timers.advance(1);
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(firstCall.size, 20, "every peer probed once within one interval");
    const times = [...firstCall.values()];
    // Uniform random phases over 1000 ms: all 20 inside 200 ms has probability ~1e-13.
    assert.ok(
      Math.max(...times) - Math.min(...times) > 200,
      `first probes spread over the interval: ${times}`,
    );
  } finally {
    await scheduler.stop();
  }
});
