import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FakeKubeApi } from "./fake-kube-api.ts";
import { nodeObject } from "./kube-objects.ts";
import { podObject } from "./pod-route.ts";

/** Reads a watch stream until `count` events arrived (or the stream ended), then aborts it. */
async function watchEvents(url: string, count: number): Promise<{ status: number; events: unknown[] }> {
  const ctl = new AbortController();
  const res = await fetch(url, { signal: ctl.signal });
  const events: { type: string }[] = [];
  const reader = res.body?.getReader();
  let buf = "";
  const dec = new TextDecoder();
  while (reader && events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)) as { type: string });
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  }
  ctl.abort();
  return { status: res.status, events };
}

describe("FakeKubeApi (test helper) speaks the parts of the API protocol we use", () => {
  let fake: FakeKubeApi;
  let base: string;
  const leases = () => `${base}/apis/coordination.k8s.io/v1/namespaces/ns/leases`;
  before(async () => {
    fake = new FakeKubeApi();
    base = await fake.start();
  });
  after(() => fake.stop());

  test("Lease: 404, create 201, duplicate create 409 AlreadyExists, PUT needs the current resourceVersion", async () => {
    const missing = await fetch(`${leases()}/l1`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { reason: string }).reason, "NotFound");
    const body = JSON.stringify({ metadata: { name: "l1" }, spec: { holderIdentity: "a" } });
    const created = await fetch(leases(), { method: "POST", body });
    assert.equal(created.status, 201);
    const lease = (await created.json()) as { metadata: { resourceVersion: string }; spec: object };
    const again = await fetch(leases(), { method: "POST", body });
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as { reason: string }).reason, "AlreadyExists");

    const put = (rv: string | undefined) =>
      fetch(`${leases()}/l1`, {
        method: "PUT",
        body: JSON.stringify({
          metadata: { name: "l1", resourceVersion: rv },
          spec: { holderIdentity: "b" },
        }),
      });
    const ok = await put(lease.metadata.resourceVersion);
    assert.equal(ok.status, 200);
    const updated = (await ok.json()) as { metadata: { resourceVersion: string } };
    assert.ok(Number(updated.metadata.resourceVersion) > Number(lease.metadata.resourceVersion));
    const stale = await put(lease.metadata.resourceVersion);
    assert.equal(stale.status, 409);
    assert.equal(((await stale.json()) as { reason: string }).reason, "Conflict");
    assert.equal((await put(undefined)).status, 422);
    assert.equal(fake.lease("ns", "l1")?.spec?.holderIdentity, "b");
  });

  test("Pods: listed per namespace, field-selected by node and pod IP; unknown fields are 400", async () => {
    fake.setPod(podObject("svc", "agent-a", "node-a", "198.18.0.5"));
    fake.setPod(podObject("svc", "agent-b", "node-b", "198.18.0.6"));
    fake.setPod(podObject("other", "agent-c", "node-a", "198.18.0.5"));
    const names = async (q: string) => {
      const res = await fetch(`${base}/api/v1/namespaces/svc/pods${q}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map(
        (i) => i.metadata.name,
      );
    };
    assert.deepEqual(await names(""), ["agent-a", "agent-b"]);
    assert.deepEqual(await names("?fieldSelector=spec.nodeName%3Dnode-a%2Cstatus.podIP%3D198.18.0.5"), [
      "agent-a",
    ]);
    assert.deepEqual(await names("?fieldSelector=spec.nodeName%3Dnode-a%2Cstatus.podIP%3D198.18.0.6"), []);
    fake.deletePod("svc", "agent-a");
    assert.deepEqual(await names("?fieldSelector=spec.nodeName%3Dnode-a"), []);
    const bad = await fetch(`${base}/api/v1/namespaces/svc/pods?fieldSelector=spec.bogus%3Dx`);
    assert.equal(bad.status, 400);
  });

  test("Nodes: list carries the global resourceVersion; watch replays newer events; compacted versions get 410", async () => {
    fake.addNode(nodeObject("a"));
    const list = (await (await fetch(`${base}/api/v1/nodes`)).json()) as {
      metadata: { resourceVersion: string };
      items: { metadata: { name: string } }[];
    };
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ["a"],
    );
    const rv = list.metadata.resourceVersion;
    fake.setNodeReady("a", false);
    fake.addNode(nodeObject("b"));
    fake.deleteNode("a");
    const replay = await watchEvents(`${base}/api/v1/nodes?watch=true&resourceVersion=${rv}`, 3);
    assert.deepEqual(
      replay.events.map((e) => (e as { type: string }).type),
      ["MODIFIED", "ADDED", "DELETED"],
    );
    const fromZero = await watchEvents(`${base}/api/v1/nodes?watch=true&resourceVersion=0`, 1);
    assert.deepEqual(fromZero.events, [{ type: "ADDED", object: fake.nodes()[0] }]);

    fake.compact();
    const gone = await watchEvents(`${base}/api/v1/nodes?watch=true&resourceVersion=${rv}`, 5);
    assert.equal(gone.status, 200);
    assert.equal(gone.events.length, 1);
    const ev = gone.events[0] as { type: string; object: { code: number; reason: string } };
    assert.equal(ev.type, "ERROR");
    assert.equal(ev.object.code, 410);
    assert.equal(ev.object.reason, "Expired");
    fake.deleteNode("b");
  });
});
