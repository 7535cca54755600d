import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  createExternalCheckServiceClient,
  type ExternalCheckAssignment,
  type ExternalCheckServiceClient,
  grpc,
} from "@svc/protocol";
import { waitUntil } from "../testing/wait-until.ts";
import { EXTERNAL_CHECKS_PATH } from "./external-checks-routes.ts";
import { type Harness, startHarness } from "./testdata/harness.ts";
import { spec } from "./testdata/specs.ts";

let h: Harness;
let client: ExternalCheckServiceClient;
before(async () => {
  h = await startHarness();
  client = createExternalCheckServiceClient(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure());
});
after(async () => {
  client.close();
  await h.close();
});

function watch(agentId: string) {
  const got: ExternalCheckAssignment[] = [];
  const errors: grpc.ServiceError[] = [];
  const call = client.WatchExternalChecks({ agent_id: agentId });
  call.on("data", (a: ExternalCheckAssignment) => got.push(a));
  call.on("error", (e: grpc.ServiceError) => errors.push(e));
  return { got, errors, cancel: () => call.cancel() };
}

const put = (body: unknown) =>
  fetch(`${h.httpUrl}${EXTERNAL_CHECKS_PATH}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("the whole assignment on subscribe and on every change; an identical PUT pushes nothing", async () => {
  const w = watch("agent-1");
  try {
    await waitUntil(() => w.got.length === 1, "initial assignment");
    assert.deepEqual(w.got[0], { specs: [] });
    h.registry.register({
      agentId: "agent-1",
      nodeName: "edge",
      address: "198.18.0.3",
      zone: "",
      labels: {},
      capabilities: [],
      httpPort: 0,
      udpPort: 0,
      metricsPort: 0,
      version: "2.5.0",
    });
    const body = { agents: { "agent-1": [spec({ checkType: "dns", params: { query: "a.example" } })] } };
    assert.equal((await put(body)).status, 200);
    await waitUntil(() => w.got.length === 2, "pushed assignment");
    assert.deepEqual(w.got[1], {
      specs: [
        {
          definition_id: "def-1",
          target: { name: "web", kind: "host", address: "198.18.0.3".replace("3", "9"), port: 0 },
          check_type: "dns",
          interval_ns: 1_000_000_000,
          timeout_ns: 500_000_000,
          params_json: '{"query":"a.example"}',
        },
      ],
    });
    const retry = (await (await put(body)).json()) as { changed: number };
    assert.equal(retry.changed, 0);
    assert.equal((await put({ agents: {} })).status, 200);
    await waitUntil(() => w.got.length === 3, "cleared assignment");
    assert.deepEqual(w.got[2], { specs: [] });
    assert.equal(w.got.length, 3, "the identical retry was not pushed");
  } finally {
    w.cancel();
  }
});

test("a standby refuses the stream with UNAVAILABLE; an empty id is INVALID_ARGUMENT", async () => {
  h.leader.value = false;
  try {
    const w = watch("agent-2");
    await waitUntil(() => w.errors.length === 1, "standby error");
    assert.equal(w.errors[0]?.code, grpc.status.UNAVAILABLE);
    assert.match(w.errors[0]?.details ?? "", /not the leader/);
  } finally {
    h.leader.value = true;
  }
  const w = watch("");
  await waitUntil(() => w.errors.length === 1, "invalid id error");
  assert.equal(w.errors[0]?.code, grpc.status.INVALID_ARGUMENT);
});
