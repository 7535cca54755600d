import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AgentServiceClient, grpc, type PeerList } from "@svc/protocol";
import { registerRequest } from "../testing/raw-client.ts";
import {
  dialGateway,
  gatewayConfig,
  register,
  startGatewayRig,
  statusOf,
  TOKEN,
} from "./testdata/gateway-rig.ts";
import { TestPki } from "./testdata/test-pki.ts";

type Rig = Awaited<ReturnType<typeof startGatewayRig>>;

function heartbeat(c: AgentServiceClient, agentId: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    c.Heartbeat({ agent_id: agentId }, { deadline: Date.now() + 3000 }, (e, r) =>
      e ? reject(e) : resolve(r),
    ),
  );
}

function firstPeerList(c: AgentServiceClient, agentId: string): Promise<PeerList> {
  return new Promise((resolve, reject) => {
    const s = c.WatchPeers({ agent_id: agentId });
    s.on("data", (l: PeerList) => {
      s.cancel();
      resolve(l);
    });
    s.on("error", reject);
  });
}

describe("external gateway with a client CA (TLS + token + identity pinning)", () => {
  let pki: TestPki;
  let rig: Rig;
  const clients: AgentServiceClient[] = [];
  const dial = (d: Parameters<typeof dialGateway>[2]): AgentServiceClient => {
    const c = dialGateway(pki, rig.port, d);
    clients.push(c);
    return c;
  };

  before(async () => {
    pki = new TestPki();
    rig = await startGatewayRig(gatewayConfig(pki, { clientCa: true }));
  });
  after(async () => {
    for (const c of clients) c.close();
    await rig.stop();
    pki.remove();
  });

  test("a client with the token and a certificate for its node registers as external", async () => {
    const c = dial({ token: TOKEN, client: pki.client("edge-1", "edge-1") });
    const res = await register(c, {
      node_name: "edge-1",
      agent_id: "edge-1-agent",
      zone: "zone-a",
      labels: { team: "net", "svc.io/external": "false" },
    });
    assert.equal(res.zone, "external");
    const agent = rig.registry.get("edge-1-agent");
    assert.ok(agent);
    assert.equal(agent.zone, "external");
    assert.deepEqual(agent.labels, { team: "net", "svc.io/external": "true" });
    assert.deepEqual(await heartbeat(c, "edge-1-agent"), { known: true });
    const list = await firstPeerList(c, "edge-1-agent");
    assert.equal(list.zone, "external");
  });

  test("a DNS subjectAltName pins as well as the CN", async () => {
    const c = dial({ token: TOKEN, client: pki.client("edge-san", "some-host", ["edge-2"]) });
    assert.equal((await register(c, { node_name: "edge-2" })).zone, "external");
  });

  test("wrong token and no token are UNAUTHENTICATED, on unary and streaming calls", async () => {
    const cert = pki.client("edge-3", "edge-3");
    const wrong = dial({ token: `${TOKEN}x`, client: cert });
    const none = dial({ client: cert });
    assert.equal(await statusOf(register(wrong, { node_name: "edge-3" })), grpc.status.UNAUTHENTICATED);
    assert.equal(await statusOf(register(none, { node_name: "edge-3" })), grpc.status.UNAUTHENTICATED);
    assert.equal(await statusOf(firstPeerList(wrong, "edge-1-agent")), grpc.status.UNAUTHENTICATED);
    assert.equal(rig.registry.get("edge-3"), undefined);
  });

  test("a certificate whose identity is not the node name is PERMISSION_DENIED", async () => {
    const c = dial({ token: TOKEN, client: pki.client("edge-4", "edge-4") });
    assert.equal(await statusOf(register(c, { node_name: "edge-5" })), grpc.status.PERMISSION_DENIED);
    // nor may it speak for another node's agent
    assert.equal(await statusOf(heartbeat(c, "edge-1-agent")), grpc.status.PERMISSION_DENIED);
    assert.equal(
      await statusOf(register(c, { node_name: "edge-4", agent_id: "edge-1-agent" })),
      grpc.status.PERMISSION_DENIED,
    );
    assert.equal(rig.registry.get("edge-1-agent")?.nodeName, "edge-1");
  });

  test("no client certificate, one from another CA, and plain text fail the connection", async () => {
    const other = pki.otherCa("rogue");
    const cases = [
      dial({ token: TOKEN }),
      dial({ token: TOKEN, client: other.client("edge-6", "edge-6") }),
      dial({ plaintext: true }),
      dial({ token: TOKEN, client: pki.client("edge-7", "edge-7"), caFile: other.ca.certFile }),
    ];
    for (const c of cases) {
      assert.equal(await statusOf(register(c, { node_name: "edge-6" })), grpc.status.UNAVAILABLE);
    }
    assert.equal(rig.registry.size, 2);
  });

  test("a gateway client may not take over an in-cluster node or its agent", async () => {
    rig.registry.register({
      ...{ agentId: "node-1", nodeName: "node-1", address: "198.18.0.1", zone: "z1", labels: {} },
      ...{ capabilities: [], httpPort: 0, udpPort: 0, metricsPort: 0, version: "2.5.0" },
    });
    const c = dial({ token: TOKEN, client: pki.client("node-1-cert", "node-1") });
    assert.equal(await statusOf(register(c, { node_name: "node-1" })), grpc.status.PERMISSION_DENIED);
    assert.equal(await statusOf(heartbeat(c, "node-1")), grpc.status.PERMISSION_DENIED);
    // a registration without an id would take its node name as id: "node-1" is taken by the in-cluster agent
    rig.registry.register({
      ...{ agentId: "node-9", nodeName: "node-2", address: "198.18.0.2", zone: "z1", labels: {} },
      ...{ capabilities: [], httpPort: 0, udpPort: 0, metricsPort: 0, version: "2.5.0" },
    });
    const c9 = dial({ token: TOKEN, client: pki.client("node-9-cert", "node-9") });
    assert.equal(await statusOf(register(c9, { node_name: "node-9" })), grpc.status.PERMISSION_DENIED);
    assert.equal(rig.registry.get("node-1")?.zone, "z1");
    assert.equal(rig.registry.get("node-9")?.nodeName, "node-2");
  });
});

describe("external gateway without a client CA (TLS + token)", () => {
  let pki: TestPki;
  let rig: Rig;
  before(async () => {
    pki = new TestPki();
    rig = await startGatewayRig(gatewayConfig(pki, { clientCa: false }));
  });
  after(async () => {
    await rig.stop();
    pki.remove();
  });

  test("the token alone admits any node name; a missing token does not", async () => {
    const ok = dialGateway(pki, rig.port, { token: TOKEN });
    const bad = dialGateway(pki, rig.port, {});
    try {
      assert.equal((await register(ok, { node_name: "bare-host" })).zone, "external");
      assert.equal(rig.registry.get("bare-host")?.labels["svc.io/external"], "true");
      assert.equal(await statusOf(register(bad, { node_name: "other" })), grpc.status.UNAUTHENTICATED);
      assert.equal(
        await statusOf(register(ok, registerRequest({ node_name: "", advertise_address: "127.0.0.1" }))),
        grpc.status.INVALID_ARGUMENT,
      );
    } finally {
      ok.close();
      bad.close();
    }
  });
});
