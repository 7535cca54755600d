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
    "169.254.169.254",
    "fe80::1",
  ]) {
    const err = await refused(registerRequest({ node_name: "bad-addr", advertise_address: addr }));
    assert.match(err.details, /^advertise_address:/, addr);
  }
});

test("every registration field is bounded: INVALID_ARGUMENT names the field, the error stays small", async () => {
  const big = "x".repeat(100_000);
  const manyLabels = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
  const heavyLabels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "v".repeat(250)]));
  const cases: [Partial<Parameters<typeof registerRequest>[0]>, RegExp][] = [
    [{ node_name: big }, /^node_name: at most 253 bytes/],
    [{ node_name: "n\u0000ul" }, /^node_name: must not contain control characters/],
    [{ agent_id: big }, /^agent_id: at most 253 bytes/],
    [{ zone: "z".repeat(64) }, /^zone: at most 63 bytes/],
    [{ version: big }, /^version: at most 64 bytes/],
    [{ labels: manyLabels }, /^labels: at most 32 entries, got 33/],
    [{ labels: { [big]: "v" } }, /^labels: key: at most 317 bytes/],
    [{ labels: { k: big } }, /^labels: value of one key: at most 256 bytes/],
    [{ labels: heavyLabels }, /^labels: at most 4096 bytes in all/],
    [{ capabilities: Array.from({ length: 33 }, (_, i) => `c${i}`) }, /^capabilities: at most 32 entries/],
    [{ capabilities: [big] }, /^capabilities: an entry: at most 64 bytes/],
    [{ advertise_address: big }, /^advertise_address: not an IP literal address refused/],
  ];
  for (const [over, want] of cases) {
    const err = await refused(
      registerRequest({ node_name: "bounded", advertise_address: "198.18.0.13", ...over }),
    );
    assert.match(err.details, want);
    assert.ok(err.details.length < 300, `error of ${err.details.length} chars`);
  }
  assert.equal(controller.registry.agentOnNode("bounded"), undefined);
  // at the bounds: accepted
  const atBounds = await raw.register(
    registerRequest({
      node_name: "n".repeat(253),
      advertise_address: "198.18.0.13",
      labels: Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(10, "_"), "v".repeat(246)]),
      ),
      capabilities: Array.from({ length: 32 }, (_, i) => `cap-${i}`),
    }),
  );
  await raw.deregister(atBounds.agent_id);
});

test("a live agent's node name is not taken from another address: ALREADY_EXISTS with the holder's address", async () => {
  await raw.register(
    registerRequest({ node_name: "owned", advertise_address: "198.18.0.20", agent_id: "holder" }),
  );
  const err = await raw
    .register(registerRequest({ node_name: "owned", advertise_address: "198.18.0.21", agent_id: "thief" }))
    .then(
      () => assert.fail("registration accepted"),
      (e: ServiceError) => e,
    );
  assert.equal(err.code, grpc.status.ALREADY_EXISTS);
  assert.match(err.details, /node name "owned" is held by a live agent at 198\.18\.0\.20/);
  assert.equal(controller.registry.agentOnNode("owned")?.id, "holder");
  assert.equal(await raw.heartbeat("holder"), true);
  // the holder itself re-registering (same address, say after a capability change) is fine
  await raw.register(
    registerRequest({
      node_name: "owned",
      advertise_address: "198.18.0.20",
      agent_id: "holder",
      capabilities: ["x"],
    }),
  );
  await raw.deregister("holder");
  // once the holder has left, the name is free
  const res = await raw.register(
    registerRequest({ node_name: "owned", advertise_address: "198.18.0.21", agent_id: "next" }),
  );
  assert.equal(res.agent_id, "next");
  await raw.deregister("next");
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
