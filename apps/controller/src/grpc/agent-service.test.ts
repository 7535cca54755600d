import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { grpc } from "@svc/protocol";

type ServiceError = grpc.ServiceError;

import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

let controller: Controller;
let raw: RawAgentClient;

before(async () => {
  controller = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 50,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
});

after(async () => {
  raw.close();
  await controller.stop();
});

async function refused(req: Parameters<RawAgentClient["register"]>[0]): Promise<ServiceError> {
  const err = await raw.register(req).then(
    () => assert.fail("registration accepted"),
    (e: ServiceError) => e,
  );
  assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
  return err;
}

test("register, heartbeat, deregister round trip; the reply carries id and resolved zone", async () => {
  const res = await raw.register(
    registerRequest({
      node_name: "rt-node",
      advertise_address: "198.18.0.10",
      zone: "zone-a",
      agent_id: "rt-id",
      http_port: 8080,
      udp_port: 9090,
      metrics_port: 9091,
    }),
  );
  assert.deepEqual(res, { agent_id: "rt-id", zone: "zone-a", http_port: 8080, udp_port: 9090 });
  assert.equal(await raw.heartbeat("rt-id"), true);
  await raw.deregister("rt-id");
  assert.equal(await raw.heartbeat("rt-id"), false);
  assert.equal(controller.registry.get("rt-id"), undefined);
});

test("heartbeat for an agent never registered answers known: false", async () => {
  assert.equal(await raw.heartbeat("nobody"), false);
});

test("ports above 65535 are refused with INVALID_ARGUMENT naming the port field", async () => {
  for (const field of ["http_port", "udp_port", "metrics_port"] as const) {
    const err = await refused(
      registerRequest({ node_name: "big-port", advertise_address: "198.18.0.11", [field]: 65536 }),
    );
    assert.match(err.details, new RegExp(`^${field}: `));
  }
  assert.equal(
    controller.registry.list().some((a) => a.nodeName === "big-port"),
    false,
  );
});

test("bad node name and advertise addresses are refused, naming the field", async () => {
  assert.match((await refused(registerRequest({ advertise_address: "198.18.0.12" }))).details, /^node_name:/);
  for (const addr of [
    "",
    "node-x",
    "0.0.0.0",
    "127.0.0.1",
    "::1",
    "224.0.0.5",
    "255.255.255.255",
    "ff02::1",
  ]) {
    const err = await refused(registerRequest({ node_name: "bad-addr", advertise_address: addr }));
    assert.match(err.details, /^advertise_address:/, addr);
  }
});

test("loopback agents are accepted only when the controller allows them", async () => {
  const lab = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    allowLoopbackAgents: true,
  });
  await lab.start();
  const c = new RawAgentClient(lab.grpcPort);
  try {
    const res = await c.register(registerRequest({ node_name: "lab-1", advertise_address: "127.0.0.1" }));
    assert.equal(res.agent_id, "lab-1");
    await assert.rejects(c.register(registerRequest({ node_name: "lab-2", advertise_address: "0.0.0.0" })));
  } finally {
    c.close();
    await lab.stop();
  }
});

test("peer lists exclude the subscriber, never carry metricsPort, and follow joins and leaves", async () => {
  await raw.register(
    registerRequest({
      node_name: "watcher",
      agent_id: "watcher",
      advertise_address: "198.18.0.20",
      zone: "zone-w",
      capabilities: ["plane:tcp", "plane:mtr"],
      http_port: 8080,
      udp_port: 9090,
      metrics_port: 9091,
    }),
  );
  const watch = raw.watch("watcher");
  try {
    const first = await watch.waitFor(() => true);
    assert.equal(first.zone, "zone-w");
    assert.equal(first.sparse, false);
    assert.deepEqual(first.planned, []);
    assert.equal(
      first.peers.some((p) => p.agent_id === "watcher"),
      false,
    );

    await raw.register(
      registerRequest({
        node_name: "joiner",
        agent_id: "joiner",
        advertise_address: "198.18.0.21",
        labels: { team: "net" },
        capabilities: ["plane:udp", "plane:mtr"],
        http_port: 18080,
        udp_port: 19090,
        metrics_port: 19091,
      }),
    );
    const joined = await watch.waitFor((l) => l.peers.some((p) => p.node_name === "joiner"));
    const peer = joined.peers.find((p) => p.node_name === "joiner");
    assert.deepEqual(peer, {
      agent_id: "joiner",
      node_name: "joiner",
      address: "198.18.0.21",
      zone: "",
      labels: { team: "net" },
      capabilities: ["plane:udp", "plane:mtr"],
      http_port: 18080,
      udp_port: 19090,
    });
    assert.equal("metrics_port" in (peer ?? {}), false);

    await raw.deregister("joiner");
    await watch.waitFor((l) => !l.peers.some((p) => p.node_name === "joiner"));
  } finally {
    watch.cancel();
    await raw.deregister("watcher");
  }
});
