import assert from "node:assert/strict";
import { test } from "node:test";
import { Controller, RawAgentClient, registerRequest, testConfig, waitUntil } from "@svc/controller";
import { ManualClock } from "@svc/controller-client/testing";
import type { Peer } from "@svc/protocol";
import { RegistrationClient, type RegistrationClientOptions } from "./client.ts";

const version = { version: "2.5.0", commit: "abc" };
const hosts = { grpcHost: "127.0.0.1", httpHost: "127.0.0.1" };
const fast = {
  heartbeatIntervalMs: 100,
  backoff: { initialMs: 50, maxMs: 400, jitter: 0.25 },
  callTimeoutMs: 1000,
};

async function startController(grpcPort = 0): Promise<Controller> {
  const c = new Controller({ config: testConfig({ grpcPort }), version, ...hosts, peerDebounceMs: 30 });
  await c.start();
  return c;
}

function client(port: number, over: Partial<RegistrationClientOptions> = {}): RegistrationClient {
  return new RegistrationClient({
    controllerAddress: `127.0.0.1:${port}`,
    nodeName: "agent-node",
    advertiseAddress: "198.18.0.50",
    zone: "",
    labels: {},
    capabilities: ["plane:tcp", "plane:mtr"],
    ports: { httpPort: 8080, udpPort: 9090, metricsPort: 9091 },
    version: "2.5.0",
    ...fast,
    ...over,
  });
}

async function topologyAgents(c: Controller): Promise<{ id: string; nodeName: string; zone: string }[]> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/topology`);
  return ((await res.json()) as { agents: { id: string; nodeName: string; zone: string }[] }).agents;
}

test("ready after the first peer list; peers exclude itself; zone adopted from the reply", async () => {
  const c = await startController();
  const raw = new RawAgentClient(c.grpcPort);
  const agent = client(c.grpcPort, { labels: { "svc.io/external": "true" }, zone: "" });
  const seen: { peers: Peer[]; planned: string[] | undefined; zone: string }[] = [];
  agent.onPeers((peers, planned, zone) => seen.push({ peers, planned, zone }));
  try {
    await raw.register(
      registerRequest({
        node_name: "other",
        agent_id: "other",
        advertise_address: "198.18.0.51",
        http_port: 18080,
      }),
    );
    assert.equal(agent.ready(), false);
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    assert.equal(agent.zone(), "external");
    const first = seen[0];
    assert.ok(first);
    assert.equal(first.zone, "external");
    assert.equal(first.planned, undefined);
    assert.deepEqual(first.peers, [
      {
        agentId: "other",
        nodeName: "other",
        address: "198.18.0.51",
        zone: "",
        labels: {},
        capabilities: [],
        httpPort: 18080,
      },
    ]);
    const [me] = (await topologyAgents(c)).filter((a) => a.nodeName === "agent-node");
    assert.equal(me?.id, agent.agentId());
  } finally {
    raw.close();
    await agent.stop();
    await c.stop();
  }
});

test("deregisters on stop: the agent leaves the topology at once", async () => {
  const c = await startController();
  const agent = client(c.grpcPort);
  try {
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    assert.equal((await topologyAgents(c)).length, 1);
    await agent.stop();
    assert.deepEqual(await topologyAgents(c), []);
  } finally {
    await agent.stop();
    await c.stop();
  }
});

test("a capability switch re-registers with the new capabilities", async () => {
  const c = await startController();
  const agent = client(c.grpcPort);
  try {
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    assert.deepEqual(c.registry.get(agent.agentId())?.capabilities, ["plane:tcp", "plane:mtr"]);
    agent.updateCapabilities(["plane:tcp", "plane:udp", "plane:mtr", "external-checks"]);
    await waitUntil(
      () => c.registry.get(agent.agentId())?.capabilities.includes("external-checks") === true,
      "re-registration with new capabilities",
    );
    assert.deepEqual(c.registry.get(agent.agentId())?.capabilities, [
      "plane:tcp",
      "plane:udp",
      "plane:mtr",
      "external-checks",
    ]);
  } finally {
    await agent.stop();
    await c.stop();
  }
});

test("re-registers after eviction (heartbeat answered known: false)", async () => {
  const c = await startController();
  const agent = client(c.grpcPort);
  try {
    agent.start();
    await waitUntil(() => c.registry.get(agent.agentId()) !== undefined, "registration");
    c.registry.deregister(agent.agentId());
    await waitUntil(() => c.registry.get(agent.agentId()) !== undefined, "re-registration");
  } finally {
    await agent.stop();
    await c.stop();
  }
});

test("re-registers with a controller restarted on the same port (which forgot it)", async () => {
  const first = await startController();
  const port = first.grpcPort;
  const agent = client(port);
  let lists = 0;
  agent.onPeers(() => lists++);
  let second: Controller | undefined;
  try {
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    await first.stop();
    const before = lists;
    second = await startController(port);
    const c2 = second;
    await waitUntil(
      () => c2.registry.get(agent.agentId()) !== undefined,
      "registration with the new controller",
    );
    await waitUntil(() => lists > before, "a peer list from the new controller");
    assert.equal((await topologyAgents(c2))[0]?.nodeName, "agent-node");
  } finally {
    await agent.stop();
    await second?.stop();
  }
});

test("after a long outage the agent re-registers within 2 s of the controller answering, not after its backoff", async () => {
  const first = await startController();
  const port = first.grpcPort;
  // backoff in virtual time: only the readiness watch can end a wait here
  const clock = new ManualClock();
  const agent = client(port, { clock, backoff: { initialMs: 2000, maxMs: 30_000, jitter: 0 } });
  let second: Controller | undefined;
  try {
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    await first.stop();
    // let attempts fail until the agent waits the full 30 s
    await waitUntil(async () => {
      const wait = clock.nextDelay();
      if (wait === 30_000) return true;
      if (wait !== undefined) clock.advance(wait);
      return false;
    }, "the backoff to reach 30 s");
    second = await startController(port);
    const c2 = second;
    const back = Date.now();
    await waitUntil(() => c2.registry.get(agent.agentId()) !== undefined, "re-registration", 2000);
    assert.ok(Date.now() - back <= 2000);
  } finally {
    await agent.stop();
    await second?.stop();
  }
});
