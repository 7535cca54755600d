import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Registration } from "../registry/agent.ts";
import { EXTERNAL_CHECKS_BODY_LIMIT, EXTERNAL_CHECKS_PATH } from "./external-checks-routes.ts";
import { type Harness, startHarness } from "./testdata/harness.ts";
import { spec } from "./testdata/specs.ts";

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

function register(id: string): void {
  const reg: Registration = {
    agentId: id,
    nodeName: `node-${id}`,
    address: "198.18.0.2",
    zone: "z",
    labels: {},
    capabilities: ["external-checks"],
    httpPort: 0,
    udpPort: 0,
    metricsPort: 0,
    version: "2.5.0",
  };
  h.registry.register(reg);
}

async function put(body: unknown, raw?: string) {
  const res = await h.http.inject({
    method: "PUT",
    url: EXTERNAL_CHECKS_PATH,
    headers: { "content-type": "application/json" },
    payload: raw ?? JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.body, json: () => res.json(), headers: res.headers };
}

test("200: known agents get their specs; an identical retry changes nothing", async () => {
  register("a1");
  register("a2");
  const body = {
    agents: {
      a1: [spec(), spec({ checkType: "dns", params: { query: "svc.example", z: 1, a: 2 } })],
      a2: [],
    },
  };
  const first = await put(body);
  assert.equal(first.status, 200);
  assert.deepEqual(first.json(), { agents: 1, changed: 1, unknown: [] });
  // same content, params keys in another order: still identical
  const retry = structuredClone(body);
  retry.agents.a1[1] = spec({ checkType: "dns", params: { a: 2, query: "svc.example", z: 1 } });
  assert.deepEqual((await put(retry)).json(), { agents: 1, changed: 0, unknown: [] });
  assert.equal(h.assignments.specsOf("a1").length, 2);
  // params may also arrive as a string holding a JSON object
  const asString = {
    agents: { a1: [spec(), spec({ checkType: "dns", params: '{"z":1,"a":2,"query":"svc.example"}' })] },
  };
  assert.deepEqual((await put(asString)).json(), { agents: 1, changed: 0, unknown: [] });
});

test("400: invalid JSON, empty body, wrong shapes", async () => {
  for (const raw of ["{not json", "", "[]", "null", '{"agents":[]}', '{"agents":{"x":{}}}']) {
    const res = await put(undefined, raw);
    assert.equal(res.status, 400, raw);
    assert.equal(typeof res.json().error, "string");
  }
  // whatever the content type, the body is read as JSON
  const res = await h.http.inject({ method: "PUT", url: EXTERNAL_CHECKS_PATH, payload: "nope" });
  assert.equal(res.statusCode, 400);
});

test("400: checkType udp, pmtu, mtr or unknown", async () => {
  for (const checkType of ["udp", "pmtu", "mtr", "ping", 7]) {
    const res = await put({ agents: { a1: [spec({ checkType })] } });
    assert.equal(res.status, 400, String(checkType));
    assert.match(res.json().error, /checkType: must be one of tcp, icmp, dns, http/);
  }
});

test("400: unparseable params", async () => {
  for (const params of ["{not json", "[1]", "3", 5, [1], true]) {
    const res = await put({ agents: { a1: [spec({ params })] } });
    assert.equal(res.status, 400, JSON.stringify(params));
    assert.match(res.json().error, /params: unparseable/);
  }
});

test("400: invalid target, interval, timeout, dns query, kind for the type", async () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ definitionId: "" }, /definitionId/],
    [{ target: { name: "" } }, /target\.name/],
    [{ target: { kind: "ip" } }, /target\.kind/],
    [{ target: { address: "" } }, /target\.address/],
    [{ target: { address: "x".repeat(2049) } }, /target\.address: longer than 2048/],
    [{ target: { port: 65536 } }, /target\.port/],
    [{ target: { port: -1 } }, /target\.port/],
    [{ target: { port: 1.5 } }, /target\.port/],
    [{ intervalNs: 0 }, /intervalNs/],
    [{ intervalNs: "1000" }, /intervalNs/],
    [{ timeoutNs: -5 }, /timeoutNs/],
    [{ timeoutNs: 1e300 }, /timeoutNs/],
    [{ checkType: "dns" }, /params\.query/],
    [{ checkType: "http" }, /http checks need a url target/],
    [{ checkType: "http", target: { kind: "url", address: "ftp://x" } }, /http or https URL/],
    [{ target: { kind: "url", address: "http://x" } }, /tcp checks need a host target/],
  ];
  for (const [over, reason] of bad) {
    const res = await put({ agents: { a1: [spec(over)] } });
    assert.equal(res.status, 400, JSON.stringify(over));
    assert.match(res.json().error, reason);
  }
  assert.equal((await put({ agents: { a1: [spec({ target: { port: 65535 } })] } })).status, 200);
});

test("one bad spec fails the whole body and changes nothing", async () => {
  register("b1");
  await put({ agents: { b1: [spec({ definitionId: "keep" })] } });
  const res = await put({
    agents: { b1: [spec({ definitionId: "new" })], a1: [spec(), spec({ checkType: "mtr" })] },
  });
  assert.equal(res.status, 400);
  assert.match(res.json().error, /agents\["a1"\]\[1\]\.checkType/);
  assert.equal(h.assignments.specsOf("b1")[0]?.definitionId, "keep");
});

test("413: body over 8 MiB; exactly 8 MiB is accepted", async () => {
  const json = JSON.stringify({ agents: { a1: [spec()] } });
  const exact = json + " ".repeat(EXTERNAL_CHECKS_BODY_LIMIT - json.length);
  assert.equal((await put(undefined, exact)).status, 200);
  const over = await put(undefined, `${exact} `);
  assert.equal(over.status, 413);
});

test("503: standby answers not the leader (text/plain) before reading the body", async () => {
  h.leader.value = false;
  try {
    for (const raw of [JSON.stringify({ agents: {} }), "x".repeat(EXTERNAL_CHECKS_BODY_LIMIT + 10)]) {
      const res = await put(undefined, raw);
      assert.equal(res.status, 503);
      assert.equal(res.body, "not the leader");
      assert.match(String(res.headers["content-type"]), /^text\/plain/);
    }
  } finally {
    h.leader.value = true;
  }
});

test("unknown ids: kept only when already holding; cleared by [] or by omission; reported sorted", async () => {
  await put({ agents: {} }); // start from an empty assignment
  register("k1");
  // never-known ids holding nothing are not recorded, but are reported
  let res = await put({ agents: { zz: [spec()], k1: [spec()], ghost: [] } });
  assert.deepEqual(res.json(), { agents: 1, changed: 1, unknown: ["ghost", "zz"] });
  assert.deepEqual(h.assignments.agentIds(), ["k1"]);
  // k1 leaves the registry: as an unknown id that holds an assignment it takes the new specs
  h.registry.deregister("k1");
  res = await put({ agents: { k1: [spec({ definitionId: "v2" })] } });
  assert.deepEqual(res.json(), { agents: 1, changed: 1, unknown: ["k1"] });
  assert.equal(h.assignments.specsOf("k1")[0]?.definitionId, "v2");
  // named with []: cleared
  res = await put({ agents: { k1: [] } });
  assert.deepEqual(res.json(), { agents: 0, changed: 1, unknown: ["k1"] });
  assert.deepEqual(h.assignments.agentIds(), []);
  // holding nothing now: not recorded again
  res = await put({ agents: { k1: [spec()] } });
  assert.deepEqual(res.json(), { agents: 0, changed: 0, unknown: ["k1"] });
  // left out: cleared
  register("k2");
  await put({ agents: { k2: [spec()] } });
  res = await put({ agents: {} });
  assert.deepEqual(res.json(), { agents: 0, changed: 1, unknown: [] });
});

test("other methods on the path are not routes", async () => {
  const res = await h.http.inject({ method: "POST", url: EXTERNAL_CHECKS_PATH, payload: "{}" });
  assert.equal(res.statusCode, 404);
});
