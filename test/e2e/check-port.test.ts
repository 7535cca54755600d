/**
 * Every path that runs a check dials the target's own port (issue 37 item 1): a target on a non-default port, a
 * real listener on it (port 0 allocated), and each path through real objects: the controller in-process, a real
 * agent task runner and a real external-check runner (the agent's probes on real sockets), the console's catalog,
 * schedules, continuous fan-out, runs and fleet check over PGlite. Paths:
 * - a schedule's round (console -> POST /api/v1/diagnostics with the target's port as `destinationPort`);
 * - the continuous fan-out (console -> PUT /api/v1/external-checks -> the agent's external runner);
 * - the controller's diagnostics route itself with `destinationPort` (and its refusals);
 * - a run and the pair page's Run check, to a node whose agent listens on a non-default port (the controller reads
 *   the destination agent's reported port).
 * Each asserts the listener accepted the connection and the check succeeded.
 */
import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import { AgentTaskRunner, probeTcp } from "@svc/agent";
import { Controller, RawAgentClient, registerRequest, testConfig, waitUntil } from "@svc/controller";
import { ExternalCheckRunner } from "../../apps/agent/src/external/external-check-runner.ts";
import { MetricRegistry } from "../../apps/agent/src/metrics/store/registry.ts";
import { probeDns } from "../../apps/agent/src/probes/dns.ts";
import { probeHttp } from "../../apps/agent/src/probes/http.ts";
import { Catalog } from "../../apps/console/src/checks/catalog.ts";
import { ExternalFanout } from "../../apps/console/src/checks/fanout.ts";
import { Schedules } from "../../apps/console/src/checks/schedules.ts";
import { ControllerClient } from "../../apps/console/src/fleet/controller-client.ts";
import { FleetService } from "../../apps/console/src/fleet/fleet-service.ts";
import { ManualTicker } from "../../apps/console/src/live/ticker.ts";
import { silent } from "../../apps/console/src/log.ts";
import { MtrHistory } from "../../apps/console/src/runs/mtr-history.ts";
import { Runs } from "../../apps/console/src/runs/runs.ts";
import type { AuditActor } from "../../apps/console/src/store/audit-row.ts";
import type { Db } from "../../apps/console/src/store/db.ts";
import { migrate } from "../../apps/console/src/store/migrations.ts";
import { pgliteDb, startPglite } from "../../apps/console/src/store/pglite.ts";
import { VirtualScheduler } from "../../apps/console/src/testing/virtual-scheduler.ts";

/** A TCP listener on loopback, port 0, counting the connections it accepted. */
async function listener(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port, accepted: () => n };
}

const actor: AuditActor = {
  subject: "test",
  subjectDisplay: "test",
  action: "test",
  remoteAddr: "127.0.0.1",
};
const EDGE = "edge-node";
const DST = "dst-node";

describe("every path that runs a check dials the target's (or agent's) own, non-default port", () => {
  let controller: Controller;
  let client: ControllerClient;
  let raw: RawAgentClient;
  let tasks: AgentTaskRunner;
  let external: ExternalCheckRunner;
  let target: Awaited<ReturnType<typeof listener>>;
  let agentPort: Awaited<ReturnType<typeof listener>>;
  let db: Db;
  let close: () => Promise<void>;
  let catalog: Catalog;
  const scheduler = new VirtualScheduler(Date.UTC(2026, 2, 1));

  before(async () => {
    target = await listener();
    agentPort = await listener();
    controller = new Controller({
      config: testConfig({ agentTtl: 600_000 }),
      version: { version: "2.5.0", commit: "test" },
      allowLoopbackAgents: true,
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
    });
    await controller.start();
    raw = new RawAgentClient(controller.grpcPort);
    // the source agent (external checks on), and a destination agent whose http port is the second listener's
    for (const [node, httpPort, capabilities] of [
      [EDGE, 8080, ["external-checks", "plane:tcp", "plane:icmp", "plane:mtr"]],
      [DST, agentPort.port, ["plane:tcp"]],
    ] as const)
      await raw.register(
        registerRequest({
          node_name: node,
          agent_id: node,
          advertise_address: "127.0.0.1",
          zone: "z1",
          capabilities: [...capabilities],
          http_port: httpPort,
          version: "2.5.0",
        }),
      );
    external = new ExternalCheckRunner({
      controllerAddress: `127.0.0.1:${controller.grpcPort}`,
      agentId: () => EDGE,
      metricsRegistry: new MetricRegistry(),
      metricsPrefix: "svc",
      sourceNode: EDGE,
      sourceZone: () => "z1",
      probers: { tcp: { probe: probeTcp }, dns: { probe: probeDns }, http: { probe: probeHttp } },
      config: { enabled: true, allowedCidrs: ["127.0.0.0/8"], deniedCidrs: [], maxTargets: 10, timeout: 0 },
    });
    external.start();
    tasks = new AgentTaskRunner({
      controllerAddress: `127.0.0.1:${controller.grpcPort}`,
      agentId: () => EDGE,
      registered: () => true,
      ports: { httpPort: 8080, udpPort: 0 },
      admitExternal: (t) => external.admitDiagnostic(t),
    });
    tasks.start();
    await waitUntil(() => controller.tasks.hasStream(EDGE), "task stream of the source agent");
    client = new ControllerClient({ url: `http://127.0.0.1:${controller.httpPort}`, timeoutMs: 10_000 });

    const pg = await startPglite("memory");
    db = await pgliteDb(pg);
    await migrate(db);
    close = () => pg.close();
    catalog = new Catalog({
      db,
      now: () => scheduler.now(),
      liveAgents: async () => (await client.topology()).agents,
    });
  });
  after(async () => {
    await tasks?.stop();
    external?.stop();
    raw?.close();
    await controller?.stop();
    await close?.();
    for (const l of [target, agentPort])
      await new Promise<void>((r) => (l ? l.server.close(() => r()) : r()));
  });

  test("a schedule's round probes the target's port (not the tcp default 443)", async () => {
    const t = await catalog.createTarget({ name: "svc-8080", address: `127.0.0.1:${target.port}` }, actor);
    const def = await catalog.createCheck(
      {
        name: "tcp to svc",
        targetId: t.id,
        type: "tcp",
        params: {},
        sources: { nodes: [EDGE], zones: [] },
        intervalSeconds: 30,
        timeoutSeconds: 5,
        enabled: true,
      },
      actor,
    );
    const schedules = new Schedules({
      db,
      scheduler,
      catalog,
      controller: client,
      mtr: new MtrHistory(db),
      log: silent,
    });
    await schedules.create(
      { name: "every minute", definitionId: def.id, kind: "check", intervalSeconds: 60, enabled: true },
      actor,
    );
    const before = target.accepted();
    assert.equal(await schedules.sweep(), 1);
    const [s] = await schedules.list();
    assert.equal(s?.lastFailure, null, `the round failed: ${s?.lastFailure}`);
    assert.equal(s?.state, "active");
    assert.ok(
      target.accepted() > before,
      "the listener on the target's port accepted the round's connection",
    );
  });

  test("the continuous fan-out's spec reaches the agent's external runner, which dials the target's port", async () => {
    const before = target.accepted();
    const ticker = new ManualTicker();
    const fanout = new ExternalFanout({
      definitions: () => catalog.enabledDefinitions(),
      controller: client,
      every: ticker.every,
      log: silent,
      skipped: () => {},
    });
    const sent = await fanout.sync();
    assert.ok(sent.ok, sent.ok ? "" : sent.error);
    const spec = sent.plan.body.agents[EDGE]?.[0];
    assert.equal(spec?.target.port, target.port, JSON.stringify(spec));
    await waitUntil(
      () => target.accepted() > before,
      "the external runner's connection to the target's port",
      30_000,
    );
    // empty the assignment again so the runner stops probing
    await client.putExternalChecks({ agents: {} });
  });

  test("the controller's diagnostics route dials destinationPort for an external destination, and refuses it otherwise", async () => {
    const before = target.accepted();
    const url = `http://127.0.0.1:${controller.httpPort}/api/v1/diagnostics?timeout=20`;
    const post = (body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const base = {
      source: EDGE,
      destination: "svc-8080",
      destinationKind: "external",
      destinationAddress: "127.0.0.1",
    };
    const ok = await post({ ...base, type: "tcp", destinationPort: target.port });
    const text = await ok.text();
    assert.equal(ok.status, 200, text);
    const result = JSON.parse(text) as { success: boolean; error?: string; details?: { port?: number } };
    assert.equal(result.success, true, text);
    assert.ok(target.accepted() > before, "the listener accepted the diagnostic's connection");
    for (const [bad, why] of [
      [{ ...base, type: "tcp", destinationPort: 0 }, /destinationPort/],
      [{ ...base, type: "tcp", destinationPort: 65536 }, /destinationPort/],
      [{ ...base, type: "tcp", destinationPort: 80.5 }, /destinationPort/],
      [{ ...base, type: "tcp", destinationPort: "80" }, /destinationPort/],
      [{ source: EDGE, destination: DST, type: "tcp", destinationPort: 80 }, /destinationPort.*external/],
    ] as const) {
      const r = await post(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.match(await r.text(), why);
    }
  });

  test("a run and the pair page's Run check dial the destination agent's reported, non-default port", async () => {
    const runs = new Runs({
      db,
      scheduler,
      diagnostics: (body) => client.diagnostics(body),
      publish: () => {},
      log: silent,
    });
    runs.start();
    try {
      const before = agentPort.accepted();
      const run = await runs.create(
        {
          type: "tcp",
          pairs: [{ source: EDGE, destination: DST }],
          sources: [],
          destinations: [],
          durationSeconds: 0,
        },
        actor,
      );
      scheduler.advance(0);
      const done = await runs.done(run.id);
      assert.equal(done.status, "completed", JSON.stringify(done.pairs));
      assert.equal(done.pairs[0]?.successes, 1, JSON.stringify(done.pairs));
      assert.ok(agentPort.accepted() > before, "the run's probe reached the destination agent's port");
    } finally {
      await runs.stop();
    }
    const fleet = new FleetService({
      prometheus: { url: "", queryTimeout: 30_000, maxResponseBytes: 8_388_608, maxRange: 86_400_000 },
      controller: { url: `http://127.0.0.1:${controller.httpPort}`, timeout: 10_000 },
    });
    const before = agentPort.accepted();
    const answer = await fleet.check({ source: EDGE, destination: DST, type: "tcp" });
    assert.equal(answer.status, 200, answer.text);
    assert.equal((JSON.parse(answer.text) as { success: boolean }).success, true, answer.text);
    assert.ok(agentPort.accepted() > before, "Run check reached the destination agent's port");
  });
});
