/**
 * Kubernetes mode (issue 33): every call on the in-cluster listener carries the agent pod's projected
 * ServiceAccount token, reviewed against the fake API server's TokenReview (answering as the real one does). A
 * registration is accepted only for the token's own pod: its node, its IPs (host network: its node's addresses),
 * the agents' ServiceAccount; an agent id registered by one pod is refused to every other.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { grpc, type RegisterRequest } from "@svc/protocol";
import {
  FakeKubeApi,
  nodeObject,
  podObject,
  type TokenSpec,
} from "../../../../test/helpers/fake-kube-api/index.ts";
import { Controller } from "../controller.ts";
import { KubernetesTokenReviewer } from "../identity/token-review.ts";
import { kubeConfigForServer } from "../leader/kube-config.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

const NS = "svc";
const AUDIENCE = "svc-controller";
let fake: FakeKubeApi;
let controller: Controller;
const clients: RawAgentClient[] = [];

before(async () => {
  fake = new FakeKubeApi();
  const url = await fake.start();
  for (const n of ["node-a", "node-b", "node-c", "node-h"]) fake.addNode(nodeObject(n));
  controller = new Controller({
    // no trusted proxies: in Kubernetes mode the token, not the source address, is the identity
    config: testConfig({ trustedProxyCidrs: [] }),
    version: { version: "2.5.0", commit: "abc" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    agentTokens: new KubernetesTokenReviewer({
      kubeConfig: kubeConfigForServer(url),
      namespace: NS,
      serviceAccount: "svc-agent",
      audience: AUDIENCE,
    }),
  });
  await controller.start();
});

after(async () => {
  for (const c of clients) c.close();
  await controller.stop();
  await fake.stop();
});

/** A client sending `token` (none when undefined) with every call. */
function client(token: string | undefined): RawAgentClient {
  const c = new RawAgentClient(controller.grpcPort, token === undefined ? {} : { token });
  clients.push(c);
  return c;
}

/** The token the kubelet would mount into agent pod `pod`. */
function token(pod: string, over: Partial<TokenSpec> = {}): string {
  return fake.issueToken({ namespace: NS, serviceAccount: "svc-agent", pod, audiences: [AUDIENCE], ...over });
}

async function refusal(c: RawAgentClient, req: Partial<RegisterRequest>): Promise<grpc.ServiceError> {
  return c.register(registerRequest(req)).then(
    () => assert.fail(`registration accepted: ${JSON.stringify(req)}`),
    (e: grpc.ServiceError) => e,
  );
}

test("an agent pod's token registers its own node and address; its heartbeats and peer watch are accepted", async () => {
  fake.setPod(podObject(NS, "svc-agent-a", "node-a", "198.18.1.1"));
  const a = client(token("svc-agent-a"));
  const reviews = fake.tokenReviews;
  const res = await a.register(
    registerRequest({ node_name: "node-a", advertise_address: "198.18.1.1", agent_id: "a" }),
  );
  assert.equal(res.agent_id, "a");
  assert.equal(await a.heartbeat("a"), true);
  const watch = a.watch("a");
  await watch.waitFor(() => true);
  watch.cancel();
  assert.equal(fake.tokenReviews - reviews, 1, "one review for the token's calls (the verdict is cached)");
  assert.equal(controller.registry.get("a")?.address, "198.18.1.1");
});

test("a token that does not review, or reviews as something else than this agent, registers nothing", async () => {
  fake.setPod(podObject(NS, "svc-agent-b", "node-b", "198.18.2.1"));
  fake.setPod(podObject(NS, "other-app", "node-b", "198.18.2.7", { serviceAccount: "other" }));
  const good = token("svc-agent-b");
  const [head, , sig] = good.split(".");
  const forgedClaims = Buffer.from(JSON.stringify({ sub: "system:serviceaccount:svc:svc-agent" })).toString(
    "base64url",
  );
  const expiring = token("svc-agent-b", { expirationSeconds: 600 });
  fake.setPod(podObject(NS, "svc-agent-gone", "node-b", "198.18.2.2"));
  const deleted = token("svc-agent-gone");
  fake.deletePod(NS, "svc-agent-gone");
  fake.setPod(podObject(NS, "svc-agent-again", "node-b", "198.18.2.3"));
  const recreatedToken = token("svc-agent-again");
  fake.setPod(podObject(NS, "svc-agent-again", "node-b", "198.18.2.3")); // a new pod of the same name: a new uid
  const req = { node_name: "node-b", advertise_address: "198.18.2.1", agent_id: "b" };
  const cases: [string, string | undefined, Partial<RegisterRequest>, grpc.status, RegExp][] = [
    ["no token", undefined, req, grpc.status.UNAUTHENTICATED, /missing bearer token/],
    ["a made-up token", "not-a-jwt", req, grpc.status.UNAUTHENTICATED, /invalid bearer token/],
    [
      "an edited token",
      `${head}.${forgedClaims}.${sig}`,
      req,
      grpc.status.UNAUTHENTICATED,
      /invalid bearer token/,
    ],
    [
      "another audience",
      token("svc-agent-b", { audiences: ["vault"] }),
      req,
      grpc.status.UNAUTHENTICATED,
      /token audiences \["vault"\] is invalid for the target audiences \["svc-controller"\]/,
    ],
    [
      "the API server's default audience",
      token("svc-agent-b", { audiences: undefined }),
      req,
      grpc.status.UNAUTHENTICATED,
      /audiences/,
    ],
    [
      "a deleted pod's token",
      deleted,
      { ...req, advertise_address: "198.18.2.2" },
      grpc.status.UNAUTHENTICATED,
      /pods "svc-agent-gone" not found/,
    ],
    [
      "a recreated pod's old token",
      recreatedToken,
      { ...req, advertise_address: "198.18.2.3" },
      grpc.status.UNAUTHENTICATED,
      /does not match the UID/,
    ],
    [
      "another service account",
      fake.issueToken({ namespace: NS, serviceAccount: "other", pod: "other-app", audiences: [AUDIENCE] }),
      { ...req, advertise_address: "198.18.2.7" },
      grpc.status.PERMISSION_DENIED,
      /belongs to "system:serviceaccount:svc:other", not to the agents' account/,
    ],
    [
      "another node",
      good,
      { ...req, node_name: "node-a" },
      grpc.status.PERMISSION_DENIED,
      /runs on node "node-b", not "node-a"/,
    ],
    [
      "another address",
      good,
      { ...req, advertise_address: "198.18.2.9" },
      grpc.status.PERMISSION_DENIED,
      /198\.18\.2\.9 is not an address of pod "svc-agent-b"/,
    ],
    [
      "8.8.8.8",
      good,
      { ...req, advertise_address: "8.8.8.8" },
      grpc.status.PERMISSION_DENIED,
      /not an address of pod/,
    ],
  ];
  for (const [what, tok, r, code, message] of cases) {
    const err = await refusal(client(tok), r);
    assert.equal(err.code, code, `${what}: ${err.details}`);
    assert.match(err.details, message, what);
  }
  // an expired token: the API server's clock has passed its exp
  const now = Date.now();
  fake.setClock(() => now + 601_000);
  try {
    const err = await refusal(client(expiring), req);
    assert.equal(err.code, grpc.status.UNAUTHENTICATED);
    assert.match(err.details, /service account token has expired/);
  } finally {
    fake.setClock(Date.now);
  }
  assert.equal(controller.registry.get("b"), undefined);
  assert.equal(controller.registry.agentOnNode("node-b"), undefined);
  // the pod's own token still registers
  assert.equal((await client(good).register(registerRequest(req))).agent_id, "b");
});

test("an agent id belongs to the pod that registered it: another pod can neither use nor take it", async () => {
  fake.setPod(podObject(NS, "svc-agent-c", "node-c", "198.18.3.1"));
  const owner = client(token("svc-agent-c"));
  await owner.register(
    registerRequest({ node_name: "node-c", advertise_address: "198.18.3.1", agent_id: "c" }),
  );
  fake.setPod(podObject(NS, "svc-agent-x", "node-a", "198.18.1.5"));
  const other = client(token("svc-agent-x"));
  const denied = async (what: string, p: Promise<unknown>): Promise<void> => {
    const err = (await p.then(
      () => assert.fail(`${what} accepted`),
      (e: grpc.ServiceError) => e,
    )) as grpc.ServiceError;
    assert.equal(err.code, grpc.status.PERMISSION_DENIED, `${what}: ${err.details}`);
  };
  await denied("heartbeat", other.heartbeat("c"));
  await denied("deregister", other.deregister("c"));
  await denied(
    "re-register under c",
    other.register(registerRequest({ node_name: "node-a", advertise_address: "198.18.1.5", agent_id: "c" })),
  );
  const watch = other.watch("c");
  await assert.rejects(watch.waitFor(() => true, 3000));
  assert.equal(watch.error()?.code, grpc.status.PERMISSION_DENIED);
  const c = controller.registry.get("c");
  assert.equal(c?.address, "198.18.3.1");
  assert.equal(c?.nodeName, "node-c");
  assert.equal(await owner.heartbeat("c"), true);
});

test("a restarted agent pod takes its node over at once once the old pod is gone", async () => {
  fake.setPod(podObject(NS, "svc-agent-c1", "node-c", "198.18.4.1"));
  const first = client(token("svc-agent-c1"));
  // node-c is held by "c" (previous test): its pod svc-agent-c still exists, so the node stays its own
  const held = await refusal(first, { node_name: "node-c", advertise_address: "198.18.4.1", agent_id: "c1" });
  assert.equal(held.code, grpc.status.ALREADY_EXISTS);
  fake.deletePod(NS, "svc-agent-c"); // crashed, no Deregister: the new pod need not wait for the TTL
  const res = await first.register(
    registerRequest({ node_name: "node-c", advertise_address: "198.18.4.1", agent_id: "c1" }),
  );
  assert.equal(res.agent_id, "c1");
  assert.equal(controller.registry.agentOnNode("node-c")?.address, "198.18.4.1");
  assert.equal(controller.registry.get("c"), undefined);
});

test("a host-network agent advertises one of its node's addresses, not another", async () => {
  fake.updateNode("node-h", (n) => {
    n.status = {
      ...n.status,
      addresses: [
        { type: "InternalIP", address: "198.18.9.10" },
        { type: "Hostname", address: "node-h" },
      ],
    };
  });
  fake.setPod(podObject(NS, "svc-agent-h", "node-h", "198.18.9.10", { hostNetwork: true }));
  const h = client(token("svc-agent-h"));
  const wrong = await refusal(h, { node_name: "node-h", advertise_address: "198.18.9.11", agent_id: "h" });
  assert.equal(wrong.code, grpc.status.PERMISSION_DENIED);
  assert.match(wrong.details, /host network: its node's addresses 198\.18\.9\.10/);
  assert.equal(
    (
      await h.register(
        registerRequest({ node_name: "node-h", advertise_address: "198.18.9.10", agent_id: "h" }),
      )
    ).agent_id,
    "h",
  );
});

test("an unreachable API answers UNAVAILABLE (the agent retries), registering nothing", async () => {
  fake.setPod(podObject(NS, "svc-agent-d", "node-a", "198.18.5.1"));
  const d = client(token("svc-agent-d"));
  fake.setUnavailable(true);
  try {
    const err = await refusal(d, { node_name: "node-a", advertise_address: "198.18.5.1", agent_id: "d" });
    assert.equal(err.code, grpc.status.UNAVAILABLE);
    assert.match(err.details, /cannot review the agent's token/);
    assert.equal(controller.registry.get("d"), undefined);
  } finally {
    fake.setUnavailable(false);
  }
});
