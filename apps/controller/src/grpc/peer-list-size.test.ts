import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { applyPeerList, grpc, type PeerList, type PeerMessage } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { REGISTRATION_LIMITS } from "../registry/limits.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

// 700 agents with every field at its registration bound make a full peer list of about 4.7 MB, over the 4 MiB a
// gRPC client accepts by default. Watchers must still get it (in parts) or a clear refusal, never a broken stream.
const AGENTS = 700;

let controller: Controller;
let raw: RawAgentClient;

function boundedRequest(i: number) {
  const L = REGISTRATION_LIMITS;
  const name = `node-${i}-`.padEnd(L.nameBytes, "n");
  const labels: Record<string, string> = {};
  for (let k = 0; k < 16; k++)
    labels[`label-${k}`.padEnd(10, "_")] = "v".repeat(L.labelsTotalBytes / 16 - 10);
  return registerRequest({
    node_name: name,
    agent_id: `${i}-`.padEnd(L.nameBytes, "i"),
    advertise_address: `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    labels,
    capabilities: Array.from({ length: L.capabilities }, (_, c) =>
      `capability-${c}-`.padEnd(L.capabilityBytes, "c"),
    ),
  });
}

before(async () => {
  controller = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 20,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
  // in batches: each Register has a 5 s deadline from its own send, and 700 sent at once on a loaded 2-core
  // machine (two suites beside each other) queued the last ones past it
  for (let i = 0; i < AGENTS; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, AGENTS - i) }, (_, k) => raw.register(boundedRequest(i + k))),
    );
});

after(async () => {
  raw.close();
  await controller.stop();
});

test("a peer list over one gRPC message reaches an incremental watcher in parts, over a default client", async () => {
  const first = boundedRequest(0);
  const call = raw.client.WatchPeers({ agent_id: first.agent_id, incremental: true });
  const held = new Map<string, PeerMessage>();
  let messages = 0;
  const whole = new Promise<void>((resolve, reject) => {
    call.on("data", (l: PeerList) => {
      messages++;
      applyPeerList(held, l, first.agent_id);
      if (held.size === AGENTS - 1) resolve();
    });
    call.on("error", (err: Error) => reject(err));
  });
  await whole;
  call.cancel();
  assert.ok(messages >= 2, `${messages} message(s)`);
  const peer = [...held.values()][0];
  assert.equal(Object.keys(peer?.labels ?? {}).length, 16, "labels arrive intact");
});

test("a watcher that takes only full lists gets RESOURCE_EXHAUSTED saying why, not a broken stream", async () => {
  const call = raw.client.WatchPeers({ agent_id: boundedRequest(1).agent_id });
  const err = await new Promise<grpc.ServiceError>((resolve, reject) => {
    call.on("data", () => reject(new Error("a list it cannot hold was sent")));
    call.on("error", (e: grpc.ServiceError) => resolve(e));
  });
  assert.equal(err.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(err.details, /peer list of 699 peers is over 3145728 bytes.*incremental: true/);
  // the controller is unharmed: registrations and heartbeats go on
  assert.equal(await raw.heartbeat(boundedRequest(2).agent_id), true);
});
