/**
 * Cluster events against the fake Kubernetes API server (test/helpers/fake-kube-api): list then watch, updates and
 * API-side deletions kept, the 10-minute relist backstop and 410 Gone relists in virtual time, the bounded
 * in-memory ring without a database, and GET /api/v1/k8s-events (window, node, 200 per answer, `truncated`) on
 * PGlite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { K8sEvent } from "@svc/contract";
import { kubeConfigForServer, waitUntil } from "@svc/controller";
import { eventObject, FakeKubeApi } from "../../../../test/helpers/fake-kube-api/index.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole } from "../testing/harness.ts";
import { VirtualScheduler } from "../testing/virtual-scheduler.ts";
import { K8S_RELIST_MS, K8sEventWatcher } from "./k8s-events.ts";

let dbs: EachDb;
before(async () => {
  dbs = await eachDb();
});
after(async () => {
  await dbs.close();
});

const T = (min: number) => new Date(Date.UTC(2026, 3, 1, 12, min)).toISOString().replace(/\.\d+Z$/, "Z");
const WINDOW = { from: Date.UTC(2026, 3, 1), to: Date.UTC(2026, 3, 2), limit: 201 };

test("list, watch, updates and deletions kept; relist every 10 minutes of virtual time; 410 relists", async () => {
  const api = new FakeKubeApi();
  const clock = new VirtualScheduler();
  const w = new K8sEventWatcher({ kubeConfig: kubeConfigForServer(await api.start()), clock });
  try {
    api.addEvent(
      eventObject("default", "web-1.a", { reason: "BackOff", type: "Warning", host: "node-1", last: T(1) }),
    );
    w.start();
    await waitUntil(() => w.status().synced && api.counters.eventWatches === 1, "listed and watching");
    api.addEvent(
      eventObject("kube-system", "node-2.b", {
        kind: "Node",
        object: "node-2",
        reason: "NodeNotReady",
        last: T(2),
      }),
    );
    await waitUntil(async () => (await w.list(WINDOW)).length === 2, "watched event kept");
    api.updateEvent("default", "web-1.a", (e) => {
      e.count = 5;
      e.lastTimestamp = T(3);
    });
    await waitUntil(async () => (await w.list(WINDOW))[0]?.count === 5, "update kept");
    const rows = await w.list(WINDOW);
    assert.deepEqual(
      rows.map((e) => [e.object, e.reason, e.type, e.node, e.namespace, e.at, e.firstAt]),
      [
        [
          "Pod/web-1.a",
          "BackOff",
          "Warning",
          "node-1",
          "default",
          "2026-04-01T12:03:00.000Z",
          "2026-04-01T12:01:00.000Z",
        ],
        [
          "Node/node-2",
          "NodeNotReady",
          "Normal",
          "node-2",
          "kube-system",
          "2026-04-01T12:02:00.000Z",
          "2026-04-01T12:02:00.000Z",
        ],
      ],
    );
    assert.deepEqual(
      (await w.list({ ...WINDOW, node: "node-2" })).map((e) => e.object),
      ["Node/node-2"],
    );
    api.deleteEvent("default", "web-1.a");
    api.addEvent(eventObject("default", "after-delete.x", { last: T(4) })); // seen after the deletion
    await waitUntil(async () => (await w.list(WINDOW)).length === 3, "event after the deletion kept");
    assert.ok(
      (await w.list(WINDOW)).some((e) => e.object === "Pod/web-1.a"),
      "an event the API server deleted stays captured",
    );

    // the backstop: a full relist every 10 minutes whatever the watch says
    assert.equal(api.counters.eventLists, 1);
    clock.advance(K8S_RELIST_MS - 1);
    assert.equal(api.counters.eventLists, 1);
    clock.advance(1);
    await waitUntil(
      () => api.counters.eventLists === 2 && api.counters.eventWatches === 2,
      "relisted at 10 min",
    );
    clock.advance(K8S_RELIST_MS);
    // and watching again: closing the watches before the new one is open would close nothing (seen once with two
    // suites at once: the watch opened after the compaction and never ended, so no 410 came)
    await waitUntil(
      () => api.counters.eventLists === 3 && api.counters.eventWatches === 3 && w.status().watching,
      "relisted at 20 min and watching",
    );

    // the watch drops; an event happens meanwhile and the history is compacted: the rewatch (1 s later, as the
    // stream ended at once) is 410 Gone, answered by a relist that brings the missed event
    api.closeWatches();
    await waitUntil(() => !w.status().watching, "watch ended");
    api.addEvent(eventObject("default", "missed.c", { last: T(9) }));
    api.compact();
    clock.advance(1000);
    await waitUntil(() => api.counters.gone === 1, "410 Gone");
    await waitUntil(() => api.counters.eventLists === 4, "relisted after 410");
    await waitUntil(async () => (await w.list(WINDOW)).length === 4, "the missed event captured");
    api.addEvent(eventObject("default", "late.d", { last: T(10) }));
    await waitUntil(async () => (await w.list(WINDOW)).length === 5, "watching again");
  } finally {
    await w.stop();
    await api.stop();
  }
});

test("without a database the ring keeps the most recently seen events only", async () => {
  const api = new FakeKubeApi();
  const w = new K8sEventWatcher({
    kubeConfig: kubeConfigForServer(await api.start()),
    clock: new VirtualScheduler(),
    ringSize: 3,
  });
  try {
    w.start();
    await waitUntil(() => api.counters.eventWatches === 1, "watching");
    for (let i = 0; i < 5; i++) api.addEvent(eventObject("default", `e${i}`, { last: T(i) }));
    await waitUntil(() => w.status().captured === 5, "all seen");
    assert.deepEqual(
      (await w.list(WINDOW)).map((e) => e.object),
      ["Pod/e4", "Pod/e3", "Pod/e2"],
    );
  } finally {
    await w.stop();
    await api.stop();
  }
});

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: GET /api/v1/k8s-events: stored, window and node filters, 200 per answer, truncated`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const api = new FakeKubeApi();
    const kubeConfig = kubeConfigForServer(await api.start());
    for (let i = 0; i < 205; i++)
      api.addEvent(
        eventObject("default", `pod-${i}.x`, { host: i < 5 ? "node-a" : "node-b", last: T(i % 60) }),
      );
    const db = await b.fresh();
    const s = await startConsole("kubernetesContext:\n  enabled: true\n", {
      db,
      server: { events: { kubeConfig, scheduler: new VirtualScheduler() } },
    });
    await s.whenReady();
    const get = async (q: string) => {
      const res = await fetch(`${s.httpUrl}/api/v1/k8s-events${q}`);
      return {
        status: res.status,
        body: (await res.json()) as { enabled: boolean; events: K8sEvent[]; truncated: boolean },
      };
    };
    const all = `?from=${T(0)}&to=${T(59)}`;
    try {
      await waitUntil(async () => {
        const [r] = await db.query("SELECT count(*) AS n FROM k8s_events");
        return Number(r?.n) === 205;
      }, "205 stored");
      const page = await get(all);
      assert.equal(page.status, 200);
      assert.equal(page.body.enabled, true);
      assert.equal(page.body.events.length, 200);
      assert.equal(page.body.truncated, true);
      const times = page.body.events.map((e) => e.at);
      assert.deepEqual(times, [...times].sort().reverse(), "newest first");
      const nodeA = await get(`${all}&node=node-a`);
      assert.equal(nodeA.body.events.length, 5);
      assert.equal(nodeA.body.truncated, false);
      const narrow = await get(`?from=${T(10)}&to=${T(10)}`);
      assert.ok(narrow.body.events.every((e) => e.at === "2026-04-01T12:10:00.000Z"));
      assert.ok(narrow.body.events.length >= 3);
      assert.equal((await get(`?from=${T(10)}&to=${T(9)}`)).status, 400);
      assert.equal((await get("?from=soon")).status, 400);
    } finally {
      await s.stop();
      await api.stop();
    }
  });
}
