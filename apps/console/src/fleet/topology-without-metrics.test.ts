/** GET /api/v1/fleet/topology without prometheus.url: the controller's inventory, links nodata, figuresAbsent. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FleetTopology } from "@svc/contract";
import type { ConsoleServer } from "../server.ts";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import { startConsole } from "../testing/harness.ts";

let controller: FakeController;
let server: ConsoleServer;
before(async () => {
  const snap = snapshotOf(["a", "b", "c"]);
  snap.nodes.push({ name: "d", zone: "z2", ready: false });
  snap.probePlan = { a: ["b"], b: ["a", "c"], c: [] };
  controller = await startFakeController(snap);
  server = await startConsole(`controller:\n  url: ${controller.url}\n`);
});
after(async () => {
  await server?.stop();
  await controller?.close();
});

test("the topology answers from the controller alone when no metrics server is configured", async () => {
  const res = await fetch(`${server.httpUrl}/api/v1/fleet/topology`);
  assert.equal(res.status, 200);
  const t = FleetTopology.parse(await res.json());
  assert.equal(t.figuresAbsent, true);
  assert.deepEqual(
    t.nodes.map((n) => [n.name, n.zone, n.ready, n.agent?.id ?? null]),
    [
      ["a", "z1", true, "agent-a"],
      ["b", "z1", true, "agent-b"],
      ["c", "z1", true, "agent-c"],
      ["d", "z2", false, null],
    ],
  );
  // planned pairs only (the sparse plan), each without figures
  assert.deepEqual(t.links.map((l) => `${l.source}>${l.destination}:${l.tier}`).sort(), [
    "a>b:nodata",
    "b>a:nodata",
    "b>c:nodata",
  ]);
  // the Prometheus-backed reads still say why they cannot answer
  const matrix = await fetch(`${server.httpUrl}/api/v1/fleet/matrix`);
  assert.equal(matrix.status, 503);
  assert.equal(((await matrix.json()) as { error: { code: string } }).error.code, "metrics_unconfigured");
});

test("a controller warming up after a start is passed on as controllerWarmingUp; absent otherwise", async () => {
  const warming = snapshotOf(["a", "b"]);
  warming.warmingUp = true;
  const c = await startFakeController(warming);
  const s = await startConsole(`controller:\n  url: ${c.url}\n`);
  try {
    const t = FleetTopology.parse(await (await fetch(`${s.httpUrl}/api/v1/fleet/topology`)).json());
    assert.equal(t.controllerWarmingUp, true);
  } finally {
    await s.stop();
    await c.close();
  }
  const settled = FleetTopology.parse(await (await fetch(`${server.httpUrl}/api/v1/fleet/topology`)).json());
  assert.equal("controllerWarmingUp" in settled, false);
});
