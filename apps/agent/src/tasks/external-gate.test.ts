import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import { Controller, testConfig, waitUntil } from "@svc/controller";
import { parseExposition } from "../../../../test/helpers/metrics-text.ts";
import { ExternalCheckRunner } from "../external/external-check-runner.ts";
import { MetricRegistry } from "../metrics/store/registry.ts";
import { probeMtr } from "../probes/mtr.ts";
import { probeTcp } from "../probes/tcp.ts";
import { RegistrationClient } from "../registration/client.ts";
import { defaultProbers } from "../scheduler/probers.ts";
import { AgentTaskRunner } from "./task-runner.ts";

// One-shot diagnostics to external destinations obey the source agent's checkers.external allowlist (spec §2.4,
// §4.2): real controller, real agent task runner, real tcp listeners on loopback. The allowlist admits 127.0.0.1
// only; 127.0.0.2 (a listener that must see nothing) and 10.9.9.9 (never contacted) are outside it.
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
const registry = new MetricRegistry();
/** every address a probe was started toward */
const dialed: string[] = [];
/** the port of every tcp probe, as the diagnostic asked for it (the probe itself goes to the test listener) */
const dialedPorts: number[] = [];
/** connections accepted, per listener address */
const accepted = new Map<string, number>();
const servers: net.Server[] = [];
let registration: RegistrationClient;
let runner: AgentTaskRunner;
let external: ExternalCheckRunner;

/** Listens on 127.0.0.1 and 127.0.0.2 on one port (picked by the kernel for the first). */
async function listeners(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const pair: net.Server[] = [];
    try {
      let port = 0;
      for (const host of ["127.0.0.1", "127.0.0.2"]) {
        const srv = net.createServer((s) => {
          accepted.set(host, (accepted.get(host) ?? 0) + 1);
          s.on("error", () => {});
          s.end();
        });
        pair.push(srv);
        await new Promise<void>((resolve, reject) => {
          srv.once("error", reject);
          srv.listen(port, host, resolve);
        });
        port = (srv.address() as net.AddressInfo).port;
      }
      servers.push(...pair);
      return port;
    } catch (err) {
      for (const s of pair) s.close();
      if (attempt >= 5) throw err;
    }
  }
}

before(async () => {
  await c.start();
  const port = await listeners();
  registration = new RegistrationClient({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    nodeName: "edge",
    advertiseAddress: "127.0.0.1",
    zone: "external",
    labels: {},
    capabilities: ["plane:tcp", "plane:icmp", "plane:mtr", "external-checks"],
    ports: { httpPort: port, udpPort: port, metricsPort: 0 },
    version: "2.5.0",
    ...fast,
  });
  registration.start();
  const probers = {
    ...defaultProbers(),
    tcp: {
      // an external tcp diagnostic dials the check's default port, 443 (spec §4.2, @svc/protocol check-port.ts); the test's
      // listeners stand in for that service
      probe: (t: Parameters<typeof probeTcp>[0]) => {
        dialed.push(t.address);
        dialedPorts.push(t.port);
        return probeTcp({ ...t, port });
      },
    },
    mtr: {
      probe: (t: Parameters<typeof probeMtr>[0]) => {
        dialed.push(t.address);
        return probeMtr(t);
      },
    },
    icmp: {
      probe: async (t: { address: string }) => {
        dialed.push(t.address);
        return { ok: true, rtts: [1], lossRatio: 0 };
      },
    },
  };
  external = new ExternalCheckRunner({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    agentId: () => registration.agentId(),
    metricsRegistry: registry,
    metricsPrefix: "svc",
    sourceNode: "edge",
    sourceZone: () => "external",
    probers,
    config: { enabled: true, allowedCidrs: ["127.0.0.1/32"], deniedCidrs: [], maxTargets: 100, timeout: 0 },
    lookup: async (host) => (host === "far.test" ? ["127.0.0.1", "10.9.9.9"] : ["127.0.0.1"]),
  });
  runner = new AgentTaskRunner({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    agentId: () => registration.agentId(),
    registered: () => registration.ready(),
    ports: { httpPort: port, udpPort: port },
    probers,
    admitExternal: (task) => external.admitDiagnostic(task),
    backoff: fast.backoff,
  });
  runner.start();
  await waitUntil(() => c.tasks.hasStream(registration.agentId()), "task stream open");
});
after(async () => {
  await runner.stop();
  external.stop();
  await registration.stop();
  await c.stop();
  for (const s of servers) s.close();
});

interface Result {
  success: boolean;
  error?: string;
  destination: string;
  details: Record<string, unknown>;
}

async function diagnose(type: string, destination: string, address: string): Promise<Result> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/diagnostics?timeout=10`, {
    method: "POST",
    body: JSON.stringify({
      source: "edge",
      destination,
      type,
      destinationKind: "external",
      destinationAddress: address,
      params: { rounds: 1, maxHops: 2 },
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as Result;
}

async function denied(labels: Record<string, string>): Promise<number> {
  return parseExposition(await registry.metrics())
    .filter((s) => s.name === "svc_external_denied_total")
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

test("an allowed external destination is probed: the listener on 127.0.0.1 accepts the connection", async () => {
  const r = await diagnose("tcp", "local", "127.0.0.1");
  assert.equal(r.success, true, r.error);
  assert.equal(r.destination, "local");
  assert.deepEqual(dialed, ["127.0.0.1"]);
  assert.deepEqual(dialedPorts, [443], "the check's default port, as for a continuous external tcp check");
  assert.equal(r.details.port, 443);
  // at least the probe's (the port is the kernel's pick on a shared loopback: a suite running beside this one once
  // reached it too)
  assert.ok(
    (accepted.get("127.0.0.1") ?? 0) >= 1,
    "the listener on 127.0.0.1 accepted the probe's connection",
  );
});

test("a destination outside the allowlist is refused before any packet: reason and count as for continuous checks", async () => {
  dialed.length = 0;
  const inside = accepted.get("127.0.0.2") ?? 0;
  const loopback = await diagnose("tcp", "other", "127.0.0.2");
  assert.equal(loopback.success, false);
  assert.equal(loopback.error, "refused by checkers.external (cidr): 127.0.0.2 is outside allowedCidrs");
  const far = await diagnose("tcp", "far", "10.9.9.9");
  assert.equal(far.success, false);
  assert.match(far.error ?? "", /\(cidr\): 10\.9\.9\.9 is outside allowedCidrs/);
  for (const type of ["icmp", "mtr"]) {
    const r = await diagnose(type, "far", "10.9.9.9");
    assert.equal(r.success, false, type);
    assert.match(r.error ?? "", /refused by checkers\.external \(cidr\)/, type);
  }
  // a name is resolved and every address must be allowed: one outside refuses the whole name
  const named = await diagnose("tcp", "named", "far.test");
  assert.match(named.error ?? "", /\(cidr\): 10\.9\.9\.9 is outside allowedCidrs/);
  assert.deepEqual(dialed, [], "no probe was started");
  assert.equal(accepted.get("127.0.0.2") ?? 0, inside, "the listener outside the allowlist saw nothing");
  const labels = { source_node: "edge", target_kind: "host", reason: "cidr" };
  assert.equal(await denied({ ...labels, target: "other", check_type: "tcp" }), 1);
  assert.equal(await denied({ ...labels, target: "far", check_type: "tcp" }), 1);
  assert.equal(await denied({ ...labels, target: "far", check_type: "icmp" }), 1);
  assert.equal(await denied({ ...labels, target: "far", check_type: "mtr" }), 1);
  assert.equal(await denied({ ...labels, target: "named", check_type: "tcp" }), 1);
});

test("an admitted name is probed at the address the allowlist checked", async () => {
  dialed.length = 0;
  const r = await diagnose("tcp", "named-ok", "near.test");
  assert.equal(r.success, true, r.error);
  assert.deepEqual(dialed, ["127.0.0.1"]);
});

test("with the external checker switched off by a reload, diagnostics to external destinations are refused", async () => {
  dialed.length = 0;
  external.applyConfig({
    enabled: false,
    allowedCidrs: ["127.0.0.1/32"],
    deniedCidrs: [],
    maxTargets: 100,
    timeout: 0,
  });
  try {
    const r = await diagnose("tcp", "local", "127.0.0.1");
    assert.equal(r.success, false);
    assert.match(r.error ?? "", /^refused by checkers\.external \(disabled\)/);
    assert.deepEqual(dialed, []);
    assert.equal(await denied({ target: "local", reason: "disabled" }), 1);
  } finally {
    external.applyConfig({
      enabled: true,
      allowedCidrs: ["127.0.0.1/32"],
      deniedCidrs: [],
      maxTargets: 100,
      timeout: 0,
    });
  }
});
