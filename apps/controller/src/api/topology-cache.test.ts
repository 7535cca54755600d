import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TopologySnapshot } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";

let c: Controller;
let raw: RawAgentClient;
before(async () => {
  c = new Controller({
    config: testConfig(),
    version: { version: "2.5.0", commit: "t" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await c.start();
  raw = new RawAgentClient(c.grpcPort);
});
after(async () => {
  raw.close();
  await c.stop();
});

async function topology(): Promise<{ snap: TopologySnapshot; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/topology`);
  return { snap: (await res.json()) as TopologySnapshot, type: res.headers.get("content-type") };
}

test("the snapshot is rebuilt only after a change: same body until an agent joins or leaves", async () => {
  const first = await topology();
  assert.match(first.type ?? "", /^application\/json/);
  assert.deepEqual(first.snap.agents, []);
  await new Promise((r) => setTimeout(r, 5));
  const again = await topology();
  assert.equal(again.snap.timestamp, first.snap.timestamp, "unchanged state: the same snapshot");
  await raw.register(registerRequest({ node_name: "n1", agent_id: "n1", advertise_address: "198.18.0.1" }));
  const joined = await topology();
  assert.deepEqual(
    joined.snap.agents.map((a) => a.nodeName),
    ["n1"],
  );
  assert.ok(Date.parse(joined.snap.timestamp) >= Date.parse(first.snap.timestamp));
  await raw.deregister("n1");
  assert.deepEqual((await topology()).snap.agents, []);
});
