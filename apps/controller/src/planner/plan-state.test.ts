import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TopologySnapshot } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

const sparse = { mode: "sparse" as const, sparse: { ringDegree: 2, zoneChords: 1, autoThreshold: 0 } };
let controller: Controller;
let raw: RawAgentClient;

before(async () => {
  const base = testConfig();
  controller = new Controller({
    config: { ...base, topology: sparse },
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 20,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
  for (let i = 1; i <= 6; i++) {
    await raw.register(
      registerRequest({
        node_name: `n${i}`,
        agent_id: `n${i}`,
        advertise_address: `198.18.0.${i}`,
        zone: i <= 3 ? "a" : "b",
        capabilities: ["plane:tcp", "plane:mtr"],
      }),
    );
  }
});

after(async () => {
  raw.close();
  await controller.stop();
});

async function topology(): Promise<TopologySnapshot> {
  return (await (
    await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/topology`)
  ).json()) as TopologySnapshot;
}

test("sparse mode: topology carries the plan and each agent's peer list carries its planned targets", async () => {
  const topo = await topology();
  assert.ok(topo.probePlan, "probePlan present under a sparse plan");
  assert.deepEqual(Object.keys(topo.probePlan).sort(), ["n1", "n2", "n3", "n4", "n5", "n6"]);
  const probedBy = new Map<string, number>();
  for (const [source, targets] of Object.entries(topo.probePlan)) {
    assert.deepEqual(targets, [...targets].sort(), "sorted");
    assert.ok(!targets.includes(source), "no self probe");
    for (const t of targets) probedBy.set(t, (probedBy.get(t) ?? 0) + 1);
  }
  for (const n of Object.keys(topo.probePlan)) assert.ok((probedBy.get(n) ?? 0) >= 2, `${n} probed by >= 2`);
  const watch = raw.watch("n1");
  const list = await watch.waitFor((l) => l.sparse);
  assert.deepEqual([...list.planned].sort(), topo.probePlan.n1);
  watch.cancel();
});

test("switching topology.mode to full on reload drops probePlan and tells agents", async () => {
  const watch = raw.watch("n2");
  await watch.waitFor((l) => l.sparse);
  controller.applyConfig({ ...controller.config, topology: { ...sparse, mode: "full" } });
  const list = await watch.waitFor((l) => !l.sparse);
  assert.deepEqual(list.planned, []);
  assert.equal((await topology()).probePlan, undefined);
  assert.ok(!("probePlan" in (await topology())), "no probePlan key in full mesh");
  watch.cancel();
});
