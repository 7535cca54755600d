import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FakeKubeApi, nodeObject } from "../../../../test/helpers/fake-kube-api/index.ts";
import { kubeConfigForServer } from "../leader/kube-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { KubernetesNodeSource } from "./kubernetes-node-source.ts";

async function withSource(
  fake: FakeKubeApi,
  opts: { failureDomainLabel?: string; relistIntervalMs?: number } = {},
): Promise<KubernetesNodeSource> {
  const src = new KubernetesNodeSource({
    kubeConfig: kubeConfigForServer(fake.url),
    retryMinMs: 50,
    ...opts,
  });
  await src.start();
  await waitUntil(() => src.hasSynced, "first node list");
  return src;
}

describe("KubernetesNodeSource against the fake API server", () => {
  let fake: FakeKubeApi;
  before(async () => {
    fake = new FakeKubeApi();
    await fake.start();
  });
  after(() => fake.stop());

  test("lists nodes with zone and readiness, then follows ADDED, MODIFIED and DELETED", async () => {
    fake.addNode(nodeObject("n1", { zone: "zone-a" }));
    fake.addNode(nodeObject("n2", { zone: "zone-b", ready: false }));
    fake.addNode(nodeObject("n0"));
    const src = await withSource(fake);
    let changes = 0;
    src.onChange(() => changes++);
    try {
      assert.deepEqual(src.list(), [
        { name: "n0", zone: "", ready: true },
        { name: "n1", zone: "zone-a", ready: true },
        { name: "n2", zone: "zone-b", ready: false },
      ]);
      assert.equal(src.zoneOf("n1"), "zone-a");
      assert.equal(src.zoneOf("n0"), undefined, "no zone label: the inventory has no zone");
      assert.equal(src.zoneOf("nope"), undefined);
      assert.equal(src.expectedAgents(), 2, "NotReady nodes are not expected to run an agent");

      fake.addNode(nodeObject("n3", { zone: "zone-a" }));
      await waitUntil(() => src.list().some((n) => n.name === "n3"), "ADDED n3");
      assert.equal(src.expectedAgents(), 3);

      fake.setNodeReady("n2", true);
      await waitUntil(() => src.list().find((n) => n.name === "n2")?.ready === true, "n2 Ready");
      fake.setNodeReady("n1", false);
      await waitUntil(() => src.list().find((n) => n.name === "n1")?.ready === false, "n1 NotReady");
      fake.updateNode("n0", (n) => {
        n.metadata.labels = { ...n.metadata.labels, "topology.kubernetes.io/zone": "zone-c" };
      });
      await waitUntil(() => src.zoneOf("n0") === "zone-c", "n0 relabelled");

      fake.deleteNode("n3");
      await waitUntil(() => !src.list().some((n) => n.name === "n3"), "DELETED n3");
      assert.deepEqual(
        src.list().map((n) => n.name),
        ["n0", "n1", "n2"],
      );
      assert.equal(src.expectedAgents(), 2);
      assert.ok(changes >= 5, `onChange called per change (got ${changes})`);
      assert.equal(fake.counters.nodeLists, 1, "a healthy watch needs no relist");
    } finally {
      await src.stop();
      for (const n of fake.nodes()) fake.deleteNode(n.metadata.name);
    }
  });

  test("zone comes from the label named by failureDomainLabel", async () => {
    fake.addNode(
      nodeObject("r1", {
        zone: "rack-7",
        zoneLabel: "example.com/rack",
        labels: { "topology.kubernetes.io/zone": "z" },
      }),
    );
    const src = await withSource(fake, { failureDomainLabel: "example.com/rack" });
    try {
      assert.deepEqual(src.list(), [{ name: "r1", zone: "rack-7", ready: true }]);
    } finally {
      await src.stop();
      fake.deleteNode("r1");
    }
  });

  test("a watch ended by the server resumes from the last resourceVersion without a relist", async () => {
    fake.addNode(nodeObject("w1"));
    const src = await withSource(fake);
    try {
      const lists = fake.counters.nodeLists;
      const watches = fake.counters.nodeWatches;
      fake.closeWatches();
      fake.addNode(nodeObject("w2"));
      await waitUntil(() => src.list().some((n) => n.name === "w2"), "w2 after rewatch");
      assert.ok(fake.counters.nodeWatches > watches);
      assert.equal(fake.counters.nodeLists, lists);
    } finally {
      await src.stop();
      fake.deleteNode("w1");
      fake.deleteNode("w2");
    }
  });

  test("stop() ends the watch: later changes are not seen", async () => {
    fake.addNode(nodeObject("s1"));
    const src = await withSource(fake);
    await src.stop();
    fake.deleteNode("s1");
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(
      src.list().map((n) => n.name),
      ["s1"],
    );
  });
});

for (const goneAs of ["event", "status"] as const) {
  test(`410 Gone (${goneAs === "event" ? "ERROR event" : "HTTP status"}) on rewatch causes a relist that picks up missed changes`, async () => {
    const fake = new FakeKubeApi({ goneAs });
    await fake.start();
    fake.addNode(nodeObject("a", { zone: "z1" }));
    fake.addNode(nodeObject("b", { zone: "z1" }));
    const src = await withSource(fake);
    try {
      assert.equal(fake.counters.nodeLists, 1);
      // the client is disconnected while nodes change and the server compacts its history
      fake.pauseWatches();
      fake.closeWatches();
      fake.deleteNode("b");
      fake.addNode(nodeObject("c", { zone: "z2" }));
      fake.compact();
      fake.resumeWatches();
      await waitUntil(() => fake.counters.gone >= 1, "a watch answered 410");
      await waitUntil(() => fake.counters.nodeLists >= 2, "a relist after 410");
      await waitUntil(
        () =>
          src
            .list()
            .map((n) => n.name)
            .join() === "a,c",
        `inventory a,c (have ${src.list().map((n) => n.name)})`,
      );
      // and the watch is live again after the relist
      fake.setNodeReady("a", false);
      await waitUntil(() => src.expectedAgents() === 1, "MODIFIED after relist");
    } finally {
      await src.stop();
      await fake.stop();
    }
  });
}

test("the relist backstop lists again every relistIntervalMs while the watch is healthy", async () => {
  const fake = new FakeKubeApi();
  await fake.start();
  fake.addNode(nodeObject("a"));
  const src = await withSource(fake, { relistIntervalMs: 200 });
  try {
    await waitUntil(() => fake.counters.nodeLists >= 3, "two backstop relists", 3000);
    assert.deepEqual(src.list(), [{ name: "a", zone: "", ready: true }]);
  } finally {
    await src.stop();
    await fake.stop();
  }
});

test("an unreachable API server is retried until a list succeeds", async () => {
  const fake = new FakeKubeApi();
  await fake.start();
  fake.addNode(nodeObject("late"));
  fake.setUnavailable(true);
  const src = new KubernetesNodeSource({ kubeConfig: kubeConfigForServer(fake.url), retryMinMs: 50 });
  await src.start();
  try {
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(src.hasSynced, false);
    assert.deepEqual(src.list(), []);
    fake.setUnavailable(false);
    await waitUntil(() => src.list().length === 1, "inventory once the API answers");
  } finally {
    await src.stop();
    await fake.stop();
  }
});
