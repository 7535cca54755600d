import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Controller, testConfig, waitUntil } from "@svc/controller";
import { kubeConfigForServer, LeaseElector } from "../../apps/controller/src/leader/index.ts";
import { KubernetesNodeSource } from "../../apps/controller/src/nodes/kubernetes-node-source.ts";
import { FakeKubeApi, nodeObject } from "../helpers/fake-kube-api/index.ts";
import { scrape } from "../helpers/metrics-text.ts";

// short timings for the test; production defaults are 15 s / 10 s / 2 s. The renew deadline leaves a leader room
// for a few slow renewals on a loaded machine (two test suites at once): at 1.5 s it stepped down under load.
// The elector's timing itself is tested in virtual time (lease-elector.test.ts); here, two real replicas.
const LEASE_MS = 4000;
const RENEW_MS = 3000;
const RETRY_MS = 300;
/** Allowance for a loaded machine on top of a bound the Lease's timings give. */
const SLACK_MS = 2000;

/** One controller replica as runController would assemble it in Kubernetes: Lease elector + Node watch. */
interface Replica {
  name: string;
  controller: Controller;
  elector: LeaseElector;
  nodes: KubernetesNodeSource;
}

async function startReplica(fake: FakeKubeApi, name: string): Promise<Replica> {
  const kubeConfig = kubeConfigForServer(fake.url);
  const elector = new LeaseElector({
    kubeConfig,
    identity: name,
    namespace: "svc",
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
  });
  const nodes = new KubernetesNodeSource({ kubeConfig });
  const config = testConfig();
  config.controller.leaderElection = true;
  const controller = new Controller({
    config,
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    isLeader: () => elector.isLeader(),
    nodeSource: () => nodes,
  });
  await nodes.start();
  await controller.start();
  elector.start();
  return { name, controller, elector, nodes };
}

/** A replica's process dies: it stops renewing without releasing the Lease, and its listeners go away. */
async function crash(r: Replica): Promise<void> {
  await r.elector.stop({ release: false });
  await r.nodes.stop();
  await r.controller.stop();
}

/** Graceful shutdown: the elector releases the Lease first. */
async function shutdown(r: Replica): Promise<void> {
  await r.elector.stop();
  await r.nodes.stop();
  await r.controller.stop();
}

async function topology(r: Replica): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(`http://127.0.0.1:${r.controller.httpPort}/api/v1/topology`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

async function leaderGauge(r: Replica): Promise<number | undefined> {
  const samples = await scrape(`http://127.0.0.1:${r.controller.metricsPort}/metrics`);
  return samples.find((s) => s.name === "svc_controller_leader")?.value;
}

async function serving(r: Replica): Promise<boolean> {
  return (await topology(r)).status === 200;
}

describe("leader election: two controllers against the fake Kubernetes API", () => {
  let fake: FakeKubeApi;
  const replicas: Replica[] = [];

  before(async () => {
    fake = new FakeKubeApi();
    await fake.start();
    fake.addNode(nodeObject("node-a", { zone: "zone-a" }));
    fake.addNode(nodeObject("node-b", { zone: "zone-b", ready: false }));
    replicas.push(await startReplica(fake, "svc-controller-0"), await startReplica(fake, "svc-controller-1"));
  });
  after(async () => {
    for (const r of replicas) await crash(r);
    await fake.stop();
  });

  let leader: Replica;
  let standby: Replica;

  test("exactly one serves; the standby answers 503 `not the leader` on leader-only routes", async () => {
    const [a, b] = replicas as [Replica, Replica];
    await waitUntil(
      async () => (await serving(a)) || (await serving(b)),
      "a leader serving /api/v1/topology",
    );
    // for a while, every round: never two serving at once. (A round with neither is a hand-over: a leader that
    // missed its renew deadline steps down before the other may take the Lease; that is the protocol, not a fault.)
    for (let i = 0; i < 10; i++) {
      const [ta, tb] = await Promise.all([topology(a), topology(b)]);
      assert.ok(
        !(ta.status === 200 && tb.status === 200),
        `round ${i}: both replicas serve (${ta.status} and ${tb.status})`,
      );
      for (const t of [ta, tb]) assert.ok(t.status === 200 || t.status === 503, `round ${i}: ${t.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitUntil(
      async () => (await serving(a)) !== (await serving(b)),
      "exactly one replica serving /api/v1/topology",
    );
    [leader, standby] = (await serving(a)) ? [a, b] : [b, a];
    assert.equal(fake.lease("svc", "svc-controller")?.spec?.holderIdentity, leader.name);

    const refused = await topology(standby);
    assert.equal(refused.status, 503);
    assert.equal(refused.body, "not the leader");
    assert.match(refused.type, /^text\/plain/);

    const served = await topology(leader);
    assert.match(served.type, /^application\/json/);
    const snap = JSON.parse(served.body) as { nodes: unknown[] };
    assert.deepEqual(snap.nodes, [
      { name: "node-a", zone: "zone-a", ready: true },
      { name: "node-b", zone: "zone-b", ready: false },
    ]);

    assert.equal(await leaderGauge(leader), 1);
    assert.equal(await leaderGauge(standby), 0);
    // non-leader-only routes answer on the standby too
    const version = await fetch(`http://127.0.0.1:${standby.controller.httpPort}/api/v1/version`);
    assert.equal(version.status, 200);
  });

  test("the leader crashes (no release): the standby serves within the lease duration", async () => {
    const killedAt = performance.now();
    await crash(leader);
    await waitUntil(() => serving(standby), "standby serving", LEASE_MS + 2 * RETRY_MS + 2 * SLACK_MS);
    const took = performance.now() - killedAt;
    // bound: lease duration after the last renewal (at most one retry period before the crash) + one attempt
    assert.ok(took <= LEASE_MS + 2 * RETRY_MS + SLACK_MS, `took over after ${Math.round(took)} ms`);
    assert.equal(await leaderGauge(standby), 1);
    assert.equal(fake.lease("svc", "svc-controller")?.spec?.holderIdentity, standby.name);
    const snap = JSON.parse((await topology(standby)).body) as { nodes: { name: string }[] };
    assert.deepEqual(
      snap.nodes.map((n) => n.name),
      ["node-a", "node-b"],
    );
  });

  test("a new replica stands by; a graceful stop of the leader hands over at once", async () => {
    const fresh = await startReplica(fake, "svc-controller-2");
    replicas.push(fresh);
    await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
    assert.equal((await topology(fresh)).status, 503);
    assert.equal(await leaderGauge(fresh), 0);

    const stoppedAt = performance.now();
    await shutdown(standby);
    await waitUntil(() => serving(fresh), "new replica serving", LEASE_MS);
    const took = performance.now() - stoppedAt;
    assert.ok(took < LEASE_MS - RETRY_MS, `took ${Math.round(took)} ms: the lease was not released`);
    assert.equal(await leaderGauge(fresh), 1);
  });
});
