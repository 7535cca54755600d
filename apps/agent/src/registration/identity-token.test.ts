/**
 * The agent's identity token (issue 33): with `agent.identityTokenFile` every call to the controller carries the
 * file's token as `authorization: Bearer`, read again for each call, so the kubelet's rotation is followed. Against
 * a Kubernetes-mode controller reviewing tokens with the fake API server's TokenReview.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  Controller,
  KubernetesTokenReviewer,
  kubeConfigForServer,
  testConfig,
  waitUntil,
} from "@svc/controller";
import { bearerInterceptor, tokenFileReader } from "@svc/controller-client";
import { FakeKubeApi, nodeObject, podObject } from "../../../../test/helpers/fake-kube-api/index.ts";
import { RegistrationClient } from "./client.ts";

const NS = "svc";
let fake: FakeKubeApi;
let controller: Controller;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-identity-token-"));
  fake = new FakeKubeApi();
  const url = await fake.start();
  fake.addNode(nodeObject("node-a"));
  fake.setPod(podObject(NS, "svc-agent-a", "node-a", "198.18.1.1"));
  controller = new Controller({
    config: testConfig({ trustedProxyCidrs: [] }),
    version: { version: "2.5.0", commit: "t" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 30,
    agentTokens: new KubernetesTokenReviewer({
      kubeConfig: kubeConfigForServer(url),
      namespace: NS,
      serviceAccount: "svc-agent",
      audience: "svc-controller",
    }),
  });
  await controller.start();
});

after(async () => {
  await controller.stop();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const token = (): string =>
  fake.issueToken({
    namespace: NS,
    serviceAccount: "svc-agent",
    pod: "svc-agent-a",
    audiences: ["svc-controller"],
  });

test("the token file rides on every call and is read again for each (rotation; a missing file is retried)", async () => {
  const file = join(dir, "token");
  const errors: string[] = [];
  const agent = new RegistrationClient({
    controllerAddress: `127.0.0.1:${controller.grpcPort}`,
    nodeName: "node-a",
    advertiseAddress: "198.18.1.1",
    zone: "",
    labels: {},
    capabilities: ["plane:tcp", "plane:mtr"],
    ports: { httpPort: 8080, udpPort: 9090, metricsPort: 9091 },
    version: "2.5.0",
    heartbeatIntervalMs: 100,
    backoff: { initialMs: 50, maxMs: 200, jitter: 0 },
    callTimeoutMs: 2000,
    interceptors: [bearerInterceptor(tokenFileReader(file, (e) => errors.push(e.message)))],
  });
  try {
    // no file yet (the kubelet has not written it): refused UNAUTHENTICATED, tried again
    agent.start();
    await waitUntil(() => errors.length >= 2, "the agent tried without its token");
    assert.equal(controller.registry.size, 0);
    writeFileSync(file, token());
    await waitUntil(() => agent.ready(), "registered once the token is there", 10_000);
    const owner = controller.registry.get(agent.agentId())?.owner;
    assert.match(owner ?? "", /^pod:/);
    // the kubelet rotates the token: the next calls carry the new one (one more review), the agent stays itself
    const reviews = fake.tokenReviews;
    writeFileSync(file, token());
    await waitUntil(() => fake.tokenReviews > reviews, "the rotated token reviewed", 5000);
    agent.updateCapabilities(["plane:tcp", "plane:udp", "plane:mtr"]);
    await waitUntil(
      () => controller.registry.get(agent.agentId())?.capabilities.includes("plane:udp") === true,
      "re-registered with the rotated token",
    );
    assert.equal(controller.registry.get(agent.agentId())?.owner, owner, "same pod, same owner");
  } finally {
    await agent.stop();
  }
  assert.equal(controller.registry.size, 0, "Deregister carried the token too");
});
