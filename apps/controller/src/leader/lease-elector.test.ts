import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { FakeKubeApi } from "../../../../test/helpers/fake-kube-api/index.ts";
import { testConfig } from "../testing/test-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { createLeaderElector } from "./create-leader-elector.ts";
import { electionIdentity, electionNamespace } from "./election-env.ts";
import { kubeConfigForServer, kubeConfigFromEnvironment } from "./kube-config.ts";
import { AlwaysLeader } from "./leader-elector.ts";
import { LeaseElector } from "./lease-elector.ts";

const LEASE_MS = 2000;
const RENEW_MS = 1500;
const RETRY_MS = 300;
const NS = "svc-system";

interface Candidate {
  elector: LeaseElector;
  started: number;
  stopped: number;
}

describe("LeaseElector against the fake API server", () => {
  let fake: FakeKubeApi;
  const running: LeaseElector[] = [];
  let leaseName = "";
  let n = 0;

  before(async () => {
    fake = new FakeKubeApi();
    await fake.start();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.stop({ release: false })));
  });
  after(() => fake.stop());

  function candidate(identity: string): Candidate {
    if (identity.endsWith("-1")) leaseName = `lease-${++n}`;
    const c: Candidate = { started: 0, stopped: 0 } as Candidate;
    c.elector = new LeaseElector({
      kubeConfig: kubeConfigForServer(fake.url),
      identity,
      namespace: NS,
      name: leaseName,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_MS,
      retryPeriodMs: RETRY_MS,
      onStartedLeading: () => c.started++,
      onStoppedLeading: () => c.stopped++,
    });
    running.push(c.elector);
    return c;
  }

  const holder = (): string | undefined =>
    fake.lease(NS, leaseName)?.spec?.holderIdentity as string | undefined;

  /** Polls for `ms`, failing if both are ever leader at once; returns the leader at the end. */
  async function neverTwo(a: Candidate, b: Candidate, ms: number): Promise<void> {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      assert.ok(!(a.elector.isLeader() && b.elector.isLeader()), "two leaders at once");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  test("a lone candidate creates the Lease and leads; it renews while leading", async () => {
    const a = candidate("ctl-1");
    assert.equal(a.elector.isLeader(), false, "not leader before start()");
    a.elector.start();
    await waitUntil(() => a.elector.isLeader(), "ctl-1 leads");
    assert.equal(a.started, 1);
    const lease = fake.lease(NS, leaseName);
    assert.equal(lease?.spec?.holderIdentity, "ctl-1");
    assert.equal(lease?.spec?.leaseDurationSeconds, 2);
    assert.equal(lease?.spec?.leaseTransitions, 0);
    assert.match(
      String(lease?.spec?.renewTime),
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
      "MicroTime format",
    );
    const rv = lease?.metadata.resourceVersion;
    await waitUntil(() => fake.lease(NS, leaseName)?.metadata.resourceVersion !== rv, "a renewal");
    assert.equal(holder(), "ctl-1");
    assert.equal(a.elector.isLeader(), true);
  });

  test("two candidates: exactly one leads; a crashed leader is replaced after the lease expires", async () => {
    const a = candidate("ctl-1");
    const b = candidate("ctl-2");
    a.elector.start();
    b.elector.start();
    await waitUntil(() => a.elector.isLeader() || b.elector.isLeader(), "a leader");
    await neverTwo(a, b, 1000);
    const [leader, standby] = a.elector.isLeader() ? [a, b] : [b, a];
    assert.equal(holder(), leader.elector.identity);
    assert.equal(standby.elector.observedLeader, leader.elector.identity);
    assert.equal(standby.started, 0);

    const killedAt = performance.now();
    await leader.elector.stop({ release: false });
    assert.equal(leader.elector.isLeader(), false);
    assert.equal(holder(), leader.elector.identity, "a crash leaves the lease held");
    await waitUntil(() => standby.elector.isLeader(), "standby takes over", LEASE_MS + 3 * RETRY_MS + 1000);
    const took = performance.now() - killedAt;
    // not before the lease could have expired (the last renewal was at most one retry period before the kill)
    assert.ok(took >= LEASE_MS - RETRY_MS, `took over after ${took} ms, before the lease expired`);
    assert.equal(holder(), standby.elector.identity);
    assert.equal(fake.lease(NS, leaseName)?.spec?.leaseTransitions, 1);
  });

  test("a graceful stop releases the Lease and the standby takes over at its next attempt", async () => {
    const a = candidate("ctl-1");
    const b = candidate("ctl-2");
    a.elector.start();
    await waitUntil(() => a.elector.isLeader(), "ctl-1 leads");
    b.elector.start();
    await neverTwo(a, b, 4 * RETRY_MS);
    assert.equal(b.elector.isLeader(), false);

    const stoppedAt = performance.now();
    await a.elector.stop();
    assert.equal(a.stopped, 1);
    await waitUntil(() => b.elector.isLeader(), "ctl-2 takes over", LEASE_MS);
    const took = performance.now() - stoppedAt;
    assert.ok(took < LEASE_MS - RETRY_MS, `took ${took} ms: the release did not make the lease free`);
    assert.equal(holder(), "ctl-2");
  });

  test("a leader that cannot renew steps down by renewDeadline; leadership resumes when the API returns", async () => {
    const a = candidate("ctl-1");
    a.elector.start();
    await waitUntil(() => a.elector.isLeader(), "ctl-1 leads");
    fake.setUnavailable(true);
    try {
      await waitUntil(() => !a.elector.isLeader(), "ctl-1 steps down", RENEW_MS + 1000);
      // isLeader() turns false on the deadline itself; the callback follows from the deadline timer
      await waitUntil(() => a.stopped === 1, "onStoppedLeading", 500);
    } finally {
      fake.setUnavailable(false);
    }
    await waitUntil(() => a.elector.isLeader(), "ctl-1 leads again", LEASE_MS + 1000);
    assert.equal(a.started, 2);
  });

  test("a leader that sees another holder in the Lease steps down at once", async () => {
    const a = candidate("ctl-1");
    a.elector.start();
    await waitUntil(() => a.elector.isLeader(), "ctl-1 leads");
    // another writer takes the lease with a valid update (right resourceVersion): e.g. an operator or a
    // replica that judged the lease expired. Like any writer it reads again and retries on 409: the leader renews
    // every retry period, and on a loaded machine a renewal can land between this read and this write.
    const url = `${fake.url}/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${leaseName}`;
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      const lease = (await (await fetch(url)).json()) as { spec: Record<string, unknown> };
      lease.spec.holderIdentity = "intruder";
      lease.spec.leaseDurationSeconds = 60;
      status = (await fetch(url, { method: "PUT", body: JSON.stringify(lease) })).status;
      if (status !== 409) assert.equal(status, 200);
    }
    assert.equal(status, 200, "the intruder's write went through");
    await waitUntil(() => !a.elector.isLeader(), "ctl-1 steps down", RENEW_MS);
    assert.equal(holder(), "intruder");
    assert.equal(a.elector.observedLeader, "intruder");
  });

  test("candidates started together race on optimistic concurrency: one wins, the other gets 409", async () => {
    const cs = [candidate("ctl-1"), candidate("ctl-2"), candidate("ctl-3")];
    const conflicts = fake.counters.leaseConflicts;
    for (const c of cs) c.elector.start();
    await waitUntil(() => cs.some((c) => c.elector.isLeader()), "a leader");
    await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
    assert.equal(cs.filter((c) => c.elector.isLeader()).length, 1);
    assert.ok(fake.counters.leaseConflicts > conflicts, "simultaneous creates: the losers got 409");
  });
});

test("constructor refuses timings that break the protocol", () => {
  const kubeConfig = kubeConfigForServer("http://127.0.0.1:1");
  const base = { kubeConfig, identity: "x" };
  assert.throws(
    () => new LeaseElector({ ...base, leaseDurationMs: 1000, renewDeadlineMs: 1000 }),
    /leaseDuration/,
  );
  assert.throws(
    () => new LeaseElector({ ...base, renewDeadlineMs: 2000, retryPeriodMs: 2000 }),
    /renewDeadline/,
  );
  assert.throws(() => new LeaseElector({ ...base, identity: "" }), /identity/);
});

test("identity and namespace come from the pod's environment", () => {
  assert.equal(electionIdentity({ SVC_POD_NAME: "svc-controller-7f9" }, "h", 1), "svc-controller-7f9");
  assert.equal(electionIdentity({ POD_NAME: "p" }, "h", 1), "p");
  assert.equal(electionIdentity({}, "host", 42), "host_42");
  assert.equal(electionNamespace({ SVC_POD_NAMESPACE: "a", POD_NAMESPACE: "b" }), "a");
  assert.equal(electionNamespace({ POD_NAMESPACE: "b" }), "b");
  assert.equal(
    electionNamespace({}, () => "monitoring\n"),
    "monitoring",
  );
  assert.equal(
    electionNamespace({}, () => undefined),
    "default",
  );
});

test("createLeaderElector: AlwaysLeader with leaderElection false or without a Kubernetes API", () => {
  const on = testConfig();
  on.controller.leaderElection = true;
  const kubeConfig = kubeConfigForServer("http://127.0.0.1:1");
  const off = createLeaderElector({ config: testConfig(), kubeConfig });
  assert.ok(off instanceof AlwaysLeader);
  assert.equal(off.isLeader(), true);
  assert.ok(createLeaderElector({ config: on, kubeConfig: undefined }) instanceof AlwaysLeader);
  const lease = createLeaderElector({
    config: on,
    kubeConfig,
    env: { SVC_POD_NAME: "p1", SVC_POD_NAMESPACE: "ns1" },
  });
  assert.ok(lease instanceof LeaseElector);
  assert.equal(lease.identity, "p1");
  assert.equal(lease.namespace, "ns1");
  assert.equal(lease.name, "svc-controller");
  assert.equal(lease.isLeader(), false, "a Lease elector is not leader before it has won");
});

test("kubeConfigFromEnvironment: only in a pod (KUBERNETES_SERVICE_HOST), never a developer's kubeconfig", () => {
  assert.equal(kubeConfigFromEnvironment({ KUBECONFIG: "/etc/hostname", HOME: "/root" }), undefined);
});
