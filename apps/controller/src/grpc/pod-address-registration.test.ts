import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { grpc } from "@svc/protocol";
import { FakeKubeApi, podObject } from "../../../../test/helpers/fake-kube-api/index.ts";
import { Controller } from "../controller.ts";
import { kubeConfigForServer } from "../leader/kube-config.ts";
import { KubernetesPodAddresses } from "../nodes/pod-addresses.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

const NS = "svc";
let fake: FakeKubeApi;
let controller: Controller;
let raw: RawAgentClient;

before(async () => {
  fake = new FakeKubeApi();
  const url = await fake.start();
  controller = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    podAddresses: new KubernetesPodAddresses({ kubeConfig: kubeConfigForServer(url), namespace: NS }),
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
});

after(async () => {
  raw.close();
  await controller.stop();
  await fake.stop();
});

async function refusal(req: Parameters<typeof registerRequest>[0]): Promise<grpc.ServiceError> {
  return raw.register(registerRequest(req)).then(
    () => assert.fail("registration accepted"),
    (e: grpc.ServiceError) => e,
  );
}

test("Kubernetes mode: the advertised address must be a pod IP on the registering node", async () => {
  fake.setPod(podObject(NS, "svc-agent-a", "node-a", "198.18.1.1"));
  fake.setPod(podObject("elsewhere", "intruder", "node-b", "198.18.1.9"));
  const ok = await raw.register(
    registerRequest({ node_name: "node-a", advertise_address: "198.18.1.1", agent_id: "a" }),
  );
  assert.equal(ok.agent_id, "a");
  // a real pod address, but claimed for another node
  const wrongNode = await refusal({ node_name: "node-b", advertise_address: "198.18.1.1", agent_id: "b" });
  assert.equal(wrongNode.code, grpc.status.PERMISSION_DENIED);
  assert.match(wrongNode.details, /198\.18\.1\.1 is not the IP of a pod on node "node-b"/);
  // a pod, but outside the agents' namespace
  const wrongNs = await refusal({ node_name: "node-b", advertise_address: "198.18.1.9", agent_id: "b" });
  assert.equal(wrongNs.code, grpc.status.PERMISSION_DENIED);
  assert.equal(controller.registry.agentOnNode("node-b"), undefined);
});

test("Kubernetes mode: a restarted agent pod takes its node over at once once the old pod is gone", async () => {
  fake.setPod(podObject(NS, "svc-agent-c1", "node-c", "198.18.2.1"));
  await raw.register(
    registerRequest({ node_name: "node-c", advertise_address: "198.18.2.1", agent_id: "c1" }),
  );
  // a second pod on the same node while the first still exists: the live holder keeps the name
  fake.setPod(podObject(NS, "svc-agent-c2", "node-c", "198.18.2.2"));
  const held = await refusal({ node_name: "node-c", advertise_address: "198.18.2.2", agent_id: "c2" });
  assert.equal(held.code, grpc.status.ALREADY_EXISTS);
  assert.match(held.details, /held by a live agent at 198\.18\.2\.1/);
  // the old pod is deleted (crashed, no Deregister): the new one need not wait for the TTL
  fake.deletePod(NS, "svc-agent-c1");
  const res = await raw.register(
    registerRequest({ node_name: "node-c", advertise_address: "198.18.2.2", agent_id: "c2" }),
  );
  assert.equal(res.agent_id, "c2");
  assert.equal(controller.registry.agentOnNode("node-c")?.address, "198.18.2.2");
  assert.equal(await raw.heartbeat("c1"), false);
});

test("Kubernetes mode: an unreachable API answers UNAVAILABLE (the agent retries), registering nothing", async () => {
  fake.setUnavailable(true);
  try {
    const err = await refusal({ node_name: "node-d", advertise_address: "198.18.3.1", agent_id: "d" });
    assert.equal(err.code, grpc.status.UNAVAILABLE);
    assert.match(err.details, /cannot check the agent's pod address/);
    assert.equal(controller.registry.get("d"), undefined);
  } finally {
    fake.setUnavailable(false);
  }
});
