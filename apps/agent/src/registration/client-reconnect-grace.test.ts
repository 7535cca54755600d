/**
 * The reconnect grace: after a controller restart, peers of the previous stream that have not re-registered yet
 * are still handed out (their probe series are not cut) until the grace ends or the new lists name their node.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Controller, RawAgentClient, registerRequest, testConfig, waitUntil } from "@svc/controller";
import { ManualClock } from "@svc/controller-client/testing";
import type { Peer } from "@svc/protocol";
import { RegistrationClient } from "./client.ts";

const version = { version: "2.5.0", commit: "abc" };

async function startController(grpcPort = 0): Promise<Controller> {
  const c = new Controller({
    config: testConfig({ grpcPort }),
    version,
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 30,
  });
  await c.start();
  return c;
}

const peer = (name: string, id: string, last: number) =>
  registerRequest({ node_name: name, agent_id: id, advertise_address: `198.18.0.${last}`, http_port: 18080 });

test("a restarted controller's short lists keep the missing peers for the grace, then drop them (grace and backoff in virtual time)", async () => {
  // the grace is judged on the client's clock: however long a loaded machine takes to reconnect and deliver
  const clock = new ManualClock();
  const GRACE_MS = 1500;
  const first = await startController();
  const port = first.grpcPort;
  const raw1 = new RawAgentClient(port);
  await raw1.register(peer("p1", "p1-a", 51));
  await raw1.register(peer("p2", "p2-a", 52));
  const agent = new RegistrationClient({
    controllerAddress: `127.0.0.1:${port}`,
    nodeName: "agent-node",
    advertiseAddress: "198.18.0.50",
    zone: "",
    labels: {},
    capabilities: ["plane:tcp"],
    ports: { httpPort: 8080, udpPort: 9090, metricsPort: 9091 },
    version: "2.5.0",
    heartbeatIntervalMs: 100,
    backoff: { initialMs: 50, maxMs: 400, jitter: 0.25 },
    callTimeoutMs: 1000,
    reconnectGraceMs: GRACE_MS,
    clock,
  });
  let last: Peer[] = [];
  let lists = 0;
  agent.onPeers((peers) => {
    last = peers;
    lists++;
  });
  const names = () => last.map((p) => `${p.nodeName}/${p.agentId}`);
  let second: Controller | undefined;
  let raw2: RawAgentClient | undefined;
  try {
    agent.start();
    await waitUntil(() => names().length === 2, "both peers");
    raw1.close();
    await first.stop();
    second = await startController(port);
    const c2 = second;
    const before = lists;
    // the reconnect backoff (at most 400 ms + jitter) runs in virtual time; the grace (1500 ms) only starts
    // once the agent registered again, and is never advanced here
    await waitUntil(() => {
      if (c2.registry.get(agent.agentId()) !== undefined && lists > before) return true;
      const wait = clock.nextDelay();
      if (wait !== undefined && wait < GRACE_MS) clock.advance(wait);
      return false;
    }, "re-registration and the new controller's first list");
    // the new controller knows only the agent itself: the previous peers are still handed out
    assert.deepEqual(names(), ["p1/p1-a", "p2/p2-a"]);
    // p1 comes back under a new id: it replaces the carried one
    raw2 = new RawAgentClient(port);
    await raw2.register(peer("p1", "p1-b", 51));
    await waitUntil(() => names().includes("p1/p1-b"), "p1 under its new id");
    assert.deepEqual(names(), ["p1/p1-b", "p2/p2-a"]);
    // the grace ends: p2, never back, is dropped then and not before
    assert.equal(clock.nextDelay(), GRACE_MS, "the grace is the one timer pending");
    clock.advance(GRACE_MS - 1);
    assert.deepEqual(names(), ["p1/p1-b", "p2/p2-a"], "still within the grace");
    clock.advance(1);
    assert.deepEqual(names(), ["p1/p1-b"]);
  } finally {
    raw2?.close();
    await agent.stop();
    await second?.stop();
  }
});
