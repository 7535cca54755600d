import assert from "node:assert/strict";
import dgram from "node:dgram";
import net from "node:net";
import { after, before, test } from "node:test";
import { Worker } from "node:worker_threads";
import { Controller, testConfig, waitUntil } from "@svc/controller";
import { ManualClock } from "@svc/controller-client/testing";
import { type Checkers, defaultConfig } from "@svc/core";
import { checkPort, type TaskMessage } from "@svc/protocol";
import type { AssignedSpec } from "../external/assigned-spec.ts";
import { runExternalCheck } from "../external/run-check.ts";
import { createIcmpProber } from "../probes/icmp.ts";
import { type MtrProbeTarget, probeMtr } from "../probes/mtr.ts";
import { createTcpProber, type TcpProbeTarget } from "../probes/tcp.ts";
import { startDnsResponder } from "../probes/testdata/dns-responder.ts";
import { RegistrationClient } from "../registration/client.ts";
import { defaultProbers, type Probers } from "../scheduler/probers.ts";
import { executeTask, type TaskCheckers } from "./execute-task.ts";
import { AgentTaskRunner } from "./task-runner.ts";

// One-shot diagnostics use the source agent's configured checkers.* (issue 25 item 6): timeouts, udp packets, dns
// hosts and resolvers, pmtu size, mtr maxHops, each observed on real sockets on loopback. A request only shortens
// the timeout (the task's own timeout) and may lower packets/size/maxHops, never raise them.

const DEFAULTS = defaultConfig("agent").checkers;

/** The spec §8.2 defaults with some checkers replaced. */
function checkers(over: Partial<{ [K in keyof Checkers]: Partial<Checkers[K]> }> = {}): TaskCheckers {
  const c = structuredClone(DEFAULTS) as Checkers;
  for (const [k, v] of Object.entries(over)) Object.assign(c[k as keyof Checkers], v);
  return c;
}

function task(over: Partial<TaskMessage> & { params?: Record<string, unknown> }): TaskMessage {
  const { params, ...rest } = over;
  return {
    task_id: "t",
    type: "tcp",
    destination: "peer",
    destination_kind: "node",
    address: "127.0.0.1",
    port: 0,
    timeout_ns: 54_000_000_000, // 90 % of the diagnostics route's default 60 s
    params_json: params === undefined ? "" : JSON.stringify(params),
    ...rest,
  };
}

const OWN_PORTS = { httpPort: 1, udpPort: 1 };
const ms = (n: number): number => n * 1_000_000;
const tick = () => new Promise<void>((r) => setImmediate(r));

/** Resolves once cond() holds, looking again on every turn of the event loop (no real-time window). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100_000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`never: ${what}`);
}

/**
 * A tcp listener on 127.0.0.1 that never accepts (its thread is blocked) and whose accept queue is full (backlog
 * 1, two connections queued): the kernel drops every further SYN, so a connect to it neither completes nor fails
 * by itself; only the prober's timeout ends it.
 */
async function stalledListener(): Promise<{ port: number; close(): Promise<void> }> {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const s = require("node:net").createServer();
    s.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
      parentPort.postMessage(s.address().port);
      Atomics.wait(new Int32Array(workerData), 0, 0);
      s.close();
    });`;
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(code, { eval: true, workerData: flag });
  const port = await new Promise<number>((resolve) => worker.once("message", resolve));
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const s = net.connect(port, "127.0.0.1");
    s.on("error", () => {});
    fillers.push(s);
    await new Promise<void>((r) => s.once("connect", () => r()));
  }
  return {
    port,
    async close() {
      for (const s of fillers) s.destroy();
      Atomics.store(new Int32Array(flag), 0, 1);
      Atomics.notify(new Int32Array(flag), 0);
      await worker.terminate();
    },
  };
}

/**
 * Runs a tcp diagnostic toward a stalled listener with the prober on a manual clock: checks nothing ends it
 * before `expectMs` of probe time and that it fails with the timeout right at `expectMs`.
 */
async function tcpTimesOutAt(
  run: (probers: Probers) => Promise<{ success: boolean; error?: string }>,
  clock: ManualClock,
  expectMs: number,
): Promise<void> {
  let settled = false;
  const pending = run({ ...defaultProbers(), tcp: createTcpProber({ clock }) }).finally(() => {
    settled = true;
  });
  await until(() => clock.pendingCount() > 0, "the tcp probe armed its timeout");
  assert.equal(clock.nextDelay(), expectMs, "the probe's deadline");
  clock.advance(expectMs - 1);
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(settled, false, "still connecting 1 ms before the timeout");
  clock.advance(1);
  const r = await pending;
  assert.equal(r.success, false);
  assert.equal(r.error, `timeout after ${expectMs}ms`);
}

test("tcp: the configured timeout ends a connect the target never completes; the task's own only shortens it", async () => {
  const target = await stalledListener();
  try {
    const exec = (c: TaskCheckers, t: Partial<TaskMessage>) => (probers: Probers) =>
      executeTask(task({ type: "tcp", port: target.port, ...t }), { probers, ports: OWN_PORTS, checkers: c });
    // the default checkers.tcp.timeout (1 s), and a configured 700 ms
    await tcpTimesOutAt(exec(checkers(), {}), new ManualClock(), 1000);
    await tcpTimesOutAt(exec(checkers({ tcp: { timeout: 700 } }), {}), new ManualClock(), 700);
    // a request with a shorter overall timeout shortens the probe; a longer one never lengthens it
    await tcpTimesOutAt(
      exec(checkers({ tcp: { timeout: 700 } }), { timeout_ns: ms(300) }),
      new ManualClock(),
      300,
    );
    await tcpTimesOutAt(
      exec(checkers({ tcp: { timeout: 700 } }), { timeout_ns: ms(5000) }),
      new ManualClock(),
      700,
    );
  } finally {
    await target.close();
  }
});

test("udp: the configured packet count reaches the echo; params.packets may lower it, never raise it", async () => {
  const echo = dgram.createSocket("udp4");
  let received = 0;
  echo.on("message", (msg, from) => {
    received++;
    echo.send(msg, from.port, from.address);
  });
  await new Promise<void>((r) => echo.bind(0, "127.0.0.1", r));
  try {
    const c = checkers({ udp: { packets: 7, timeout: 150 } });
    const run = async (params?: Record<string, unknown>) => {
      received = 0;
      const t = task({ type: "udp", port: echo.address().port, ...(params ? { params } : {}) });
      const r = await executeTask(t, { probers: defaultProbers(), ports: OWN_PORTS, checkers: c });
      assert.equal(r.success, true, r.error);
      return { received, details: r.details ?? {} };
    };
    const configured = await run();
    assert.equal(configured.received, 7, "datagrams the echo received");
    assert.equal(configured.details.sent, 7);
    assert.equal(configured.details.timeout, ms(150), "per-datagram deadline: checkers.udp.timeout");
    assert.equal((await run({ packets: 3 })).received, 3);
    assert.equal(
      (await run({ packets: 50 })).received,
      7,
      "above checkers.udp.packets: the configured count",
    );
  } finally {
    echo.close();
  }
});

test("dns: configured hosts through the configured resolver; a name only that resolver knows resolves", async () => {
  const responder = await startDnsResponder({
    a: { "only-here.test": "192.0.2.7", "also.test": "192.0.2.8" },
  });
  try {
    const resolver = `127.0.0.1:${responder.port}`;
    const c = checkers({
      dns: { hosts: ["only-here.test", "also.test"], resolvers: [resolver], timeout: 1500 },
    });
    const exec = (t: TaskMessage) =>
      executeTask(t, { probers: defaultProbers(), ports: OWN_PORTS, checkers: c });
    // no params: every configured host, as the continuous dns check asks them
    const all = await exec(task({ type: "dns" }));
    assert.equal(all.success, true, all.error);
    assert.equal(all.details?.resolver, resolver);
    assert.equal(all.details?.timeout, ms(1500));
    const lookups = all.details?.lookups as { host: string; resolver: string; addresses: string[] }[];
    assert.deepEqual(
      lookups.map((l) => [l.host, l.resolver, l.addresses]),
      [
        ["only-here.test", resolver, ["192.0.2.7"]],
        ["also.test", resolver, ["192.0.2.8"]],
      ],
    );
    assert.deepEqual(
      responder.queries.map((q) => q.name).sort(),
      ["also.test", "only-here.test"],
      "the configured resolver was asked",
    );
    // params.query: another name, still through the configured resolver
    const one = await exec(task({ type: "dns", params: { query: "only-here.test" } }));
    assert.equal(one.success, true, one.error);
    assert.deepEqual(one.details?.addresses, ["192.0.2.7"]);
    // a resolver the agent is not configured to ask is refused before any query
    const before = responder.queries.length;
    const other = await exec(
      task({ type: "dns", params: { query: "only-here.test", resolver: "127.0.0.1:9" } }),
    );
    assert.equal(other.success, false);
    assert.match(other.error, /resolver 127\.0\.0\.1:9 is not in checkers\.dns\.resolvers/);
    assert.equal(responder.queries.length, before);
    // a name the resolver does not know fails, and says which lookup failed
    const missing = await exec(task({ type: "dns", params: { query: "nowhere.test" } }));
    assert.equal(missing.success, false);
    assert.equal(missing.details?.query, "nowhere.test");
  } finally {
    await responder.close();
  }
});

test("pmtu: the configured size is what crosses to the echo, with the configured timeout", async () => {
  const echo = dgram.createSocket("udp4");
  const sizes: number[] = [];
  echo.on("message", (msg, from) => {
    sizes.push(msg.length);
    echo.send(msg, from.port, from.address);
  });
  await new Promise<void>((r) => echo.bind(0, "127.0.0.1", r));
  try {
    const run = async (c: TaskCheckers, t: Parameters<typeof task>[0] = {}) => {
      sizes.length = 0;
      const r = await executeTask(task({ type: "pmtu", port: echo.address().port, ...t }), {
        probers: defaultProbers(),
        ports: OWN_PORTS,
        checkers: c,
      });
      assert.equal(r.success, true, r.error);
      return { sizes: [...sizes], details: r.details ?? {} };
    };
    const c = checkers({ pmtu: { size: 1400 } });
    const configured = await run(c);
    assert.equal(configured.details.probeBytes, 1400);
    assert.equal(configured.details.size, 1400);
    assert.equal(configured.details.timeout, ms(500), "checkers.pmtu.timeout (default 500 ms), not 1000");
    assert.ok(configured.sizes.includes(1400 - 28), `the echo got a 1400-byte packet: ${configured.sizes}`);
    assert.ok(!configured.sizes.some((s) => s > 1400 - 28), "nothing larger");
    const smaller = await run(c, { params: { size: 1200 } });
    assert.equal(smaller.details.probeBytes, 1200);
    const larger = await run(c, { params: { size: 9000 } });
    assert.equal(larger.details.probeBytes, 1400, "a request cannot probe above the configured size");
    const shortTask = await run(checkers({ pmtu: { size: 1400, timeout: 800 } }), { timeout_ns: ms(250) });
    assert.equal(shortTask.details.timeout, ms(250));
  } finally {
    echo.close();
  }
});

const icmpSocket = (() => {
  const p = createIcmpProber();
  try {
    return p.socketKind(4);
  } finally {
    p.close();
  }
})();
const noIcmp = icmpSocket === undefined ? "no ICMP socket (needs root or ping_group_range)" : false;

test("icmp: the configured timeout and the echo count reach a real ping of 127.0.0.1", {
  skip: noIcmp,
}, async () => {
  const icmp = createIcmpProber();
  const asked: { timeoutMs: number; count?: number }[] = [];
  const probers: Probers = {
    ...defaultProbers(),
    icmp: {
      probe: (t) => {
        asked.push({ timeoutMs: t.timeoutMs, count: t.count });
        return icmp.probe(t);
      },
    },
  };
  try {
    const c = checkers({ icmp: { timeout: 700 } });
    const r = await executeTask(task({ type: "icmp" }), { probers, ports: OWN_PORTS, checkers: c });
    assert.equal(r.success, true, r.error);
    assert.equal((r.details?.rtts as number[] | undefined)?.length, 3, "three echoes answered");
    assert.equal(r.details?.timeout, ms(700));
    const two = await executeTask(task({ type: "icmp", timeout_ns: ms(400), params: { count: 2 } }), {
      probers,
      ports: OWN_PORTS,
      checkers: c,
    });
    assert.equal((two.details?.rtts as number[] | undefined)?.length, 2);
    assert.equal(two.details?.timeout, ms(400));
    assert.deepEqual(asked, [
      { timeoutMs: 700, count: 3 },
      { timeoutMs: 400, count: 2 },
    ]);
  } finally {
    icmp.close();
  }
});

test("mtr: checkers.mtr.maxHops bounds a trace of 127.0.0.1; params.maxHops may only lower it", {
  skip: noIcmp,
}, async () => {
  const asked: MtrProbeTarget[] = [];
  const probers: Probers = {
    ...defaultProbers(),
    mtr: {
      probe: (t) => {
        asked.push(t);
        return probeMtr({ ...t, intervalMs: 10 });
      },
    },
  };
  const c = checkers({ mtr: { maxHops: 3 } });
  const run = (params: Record<string, unknown>) =>
    executeTask(task({ type: "mtr", destination_kind: "external", params: { rounds: 1, ...params } }), {
      probers,
      ports: OWN_PORTS,
      checkers: c,
    });
  const capped = await run({ maxHops: 10 });
  assert.equal(capped.success, true, capped.error);
  assert.deepEqual(
    (capped.details?.hops as { ip: string }[] | undefined)?.map((h) => h.ip),
    ["127.0.0.1"],
  );
  assert.equal(capped.details?.maxHops, 3);
  const lower = await run({ maxHops: 2 });
  assert.equal(lower.details?.maxHops, 2);
  assert.deepEqual(
    asked.map((t) => [t.maxHops, t.rounds, t.timeoutMs]),
    [
      [3, 1, 1000],
      [2, 1, 1000],
    ],
  );
});

test("the check's default port is one function: an external tcp diagnostic and a continuous external check dial 443", async () => {
  const dialed: number[] = [];
  const tcp = {
    probe: async (t: TcpProbeTarget) => {
      dialed.push(t.port);
      return { ok: false, error: "not dialled in this test" };
    },
  };
  const r = await executeTask(task({ type: "tcp", destination_kind: "external", port: 0 }), {
    probers: { ...defaultProbers(), tcp },
    ports: { httpPort: 8080, udpPort: 9090 },
    checkers: checkers(),
  });
  assert.equal(r.details?.port, 443);
  const spec: AssignedSpec = {
    key: "k",
    definitionId: "d",
    checkType: "tcp",
    target: { name: "t", kind: "host", address: "127.0.0.1", port: 0 },
    intervalMs: 1000,
    timeoutMs: 1000,
    params: {},
  };
  await runExternalCheck(spec, "127.0.0.1", 1000, { ...defaultProbers(), tcp });
  assert.deepEqual(dialed, [443, 443]);
  assert.equal(checkPort("tcp", { kind: "external", port: 0 }), 443);
  assert.equal(checkPort("dns", { kind: "external", port: 0 }), 53);
  assert.equal(checkPort("tcp", { kind: "external", port: 8443 }), 8443);
  // a node destination keeps the destination agent's reported port, else this agent's own (as peer probes do)
  dialed.length = 0;
  await executeTask(task({ type: "tcp", port: 0 }), {
    probers: { ...defaultProbers(), tcp },
    ports: { httpPort: 8080, udpPort: 9090 },
    checkers: checkers(),
  });
  assert.deepEqual(dialed, [8080]);
});

// Through the controller: the runner reads the live checkers.* for every task, so a reload applies to the next
// diagnostic.
const fast = {
  heartbeatIntervalMs: 200,
  backoff: { initialMs: 50, maxMs: 200, jitter: 0 },
  callTimeoutMs: 1000,
};
let controller: Controller;
let registration: RegistrationClient;
const registrations: RegistrationClient[] = [];
let runner: AgentTaskRunner;
let live = checkers();
const runnerClock = { current: new ManualClock() };
let stalled: Awaited<ReturnType<typeof stalledListener>> | undefined;

before(async () => {
  controller = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "t" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    allowLoopbackAgents: true,
    peerDebounceMs: 20,
  });
  await controller.start();
  stalled = await stalledListener();
  const caps = ["plane:tcp", "plane:udp", "plane:icmp", "plane:pmtu", "plane:dns", "plane:http", "plane:mtr"];
  for (const nodeName of ["src", "dst"]) {
    const r = new RegistrationClient({
      controllerAddress: `127.0.0.1:${controller.grpcPort}`,
      nodeName,
      advertiseAddress: "127.0.0.1",
      zone: "z",
      labels: {},
      capabilities: caps,
      // the destination agent reports the stalled listener as its httpPort
      ports: { httpPort: nodeName === "dst" ? stalled.port : 1, udpPort: 1, metricsPort: 0 },
      version: "2.5.0",
      ...fast,
    });
    r.start();
    registrations.push(r);
    if (nodeName === "src") registration = r;
  }
  runner = new AgentTaskRunner({
    controllerAddress: `127.0.0.1:${controller.grpcPort}`,
    agentId: () => registration.agentId(),
    registered: () => registration.ready(),
    ports: OWN_PORTS,
    probers: {
      ...defaultProbers(),
      tcp: { probe: (t) => createTcpProber({ clock: runnerClock.current }).probe(t) },
    },
    checkers: () => live,
    backoff: fast.backoff,
  });
  runner.start();
  await waitUntil(
    () => controller.registry.size === 2 && controller.tasks.hasStream(registration.agentId()),
    "agents registered, task stream open",
  );
});
after(async () => {
  await runner?.stop();
  for (const r of registrations) await r.stop();
  await controller?.stop();
  await stalled?.close();
});

test("a reloaded checkers.tcp.timeout applies to the next diagnostic", async () => {
  const diagnose = async () => {
    const res = await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/diagnostics?timeout=30`, {
      method: "POST",
      body: JSON.stringify({ source: "src", destination: "dst", type: "tcp" }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text) as { success: boolean; error?: string };
  };
  live = checkers({ tcp: { timeout: 1000 } });
  runnerClock.current = new ManualClock();
  await tcpTimesOutAt(diagnose, runnerClock.current, 1000);
  live = checkers({ tcp: { timeout: 400 } });
  runnerClock.current = new ManualClock();
  await tcpTimesOutAt(diagnose, runnerClock.current, 400);
});
