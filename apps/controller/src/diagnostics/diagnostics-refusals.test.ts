import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Controller } from "../controller.ts";
import { testConfig } from "../testing/test-config.ts";
import { parseTimeoutSeconds } from "./request.ts";
import { TaskAgent } from "./testdata/task-agent.ts";

// Refusals of POST /api/v1/diagnostics: every 4xx/5xx the controller gives before (or instead of) a dispatch.
let leader = true;
const c = new Controller({
  config: testConfig(),
  version: { version: "2.5.0", commit: "t" },
  grpcHost: "127.0.0.1",
  httpHost: "127.0.0.1",
  isLeader: () => leader,
});
const agents: TaskAgent[] = [];
const silent = () => undefined;

before(async () => {
  await c.start();
  // Registered, but no task stream: dispatches to it fail with 404 "no active task stream".
  agents.push(
    await TaskAgent.start(
      c,
      { node_name: "src", capabilities: ["plane:tcp", "plane:udp", "plane:mtr"] },
      silent,
      false,
    ),
    await TaskAgent.start(c, { node_name: "dst", advertise_address: "198.18.0.11" }, silent, false),
  );
});
after(async () => {
  for (const a of agents) a.close();
  await c.stop();
});

async function post(body: unknown, query = ""): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/diagnostics${query}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") ?? "" };
}

const ok = { source: "src", destination: "dst", type: "tcp" };

test("400: malformed JSON, missing fields, invalid type, plane, destinationKind, external rules", async () => {
  const cases: [unknown, RegExp][] = [
    ["{not json", /malformed JSON/],
    ["[1,2]", /malformed JSON/],
    [{ destination: "dst", type: "tcp" }, /missing source/],
    [{ source: "src", type: "tcp" }, /missing destination/],
    [{ source: "src", destination: "dst" }, /missing type/],
    [{ ...ok, type: "ping" }, /invalid type "ping"/],
    [{ ...ok, plane: "host" }, /only "pod"/],
    [{ ...ok, destinationKind: "cluster" }, /destinationKind/],
    [{ ...ok, destinationKind: "external" }, /destinationAddress is required/],
    [
      { ...ok, type: "udp", destinationKind: "external", destinationAddress: "198.18.0.99" },
      /destinationKind "node"/,
    ],
    [
      { ...ok, type: "pmtu", destinationKind: "external", destinationAddress: "198.18.0.99" },
      /destinationKind "node"/,
    ],
    [
      { ...ok, type: "dns", destinationKind: "external", destinationAddress: "198.18.0.99" },
      /continuous external check.*"dns"/,
    ],
    [
      { ...ok, type: "http", destinationKind: "external", destinationAddress: "198.18.0.99" },
      /continuous external check.*"http"/,
    ],
  ];
  for (const [body, reason] of cases) {
    const res = await post(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.text}`);
    assert.match(res.text, reason);
    assert.match(res.type, /^text\/plain/);
  }
  // plane "pod" is accepted (the request gets past validation to the dispatch)
  assert.equal((await post({ ...ok, plane: "pod" })).status, 404);
});

test("413: a body over 64 KiB; exactly 64 KiB is read", async () => {
  const pad = (n: number) => JSON.stringify({ ...ok, pad: "x".repeat(n) });
  const base = pad(0).length;
  const over = await post(pad(65537 - base));
  assert.equal(over.status, 413);
  const at = await post(pad(65536 - base));
  assert.notEqual(at.status, 413);
});

test("404: no agent on the source node, none on the destination node, no active task stream", async () => {
  const src = await post({ ...ok, source: "nowhere" });
  assert.equal(src.status, 404);
  assert.match(src.text, /no agent on source node nowhere/);
  const dst = await post({ ...ok, destination: "nowhere" });
  assert.equal(dst.status, 404);
  assert.match(dst.text, /no agent on destination node nowhere/);
  const stream = await post(ok);
  assert.equal(stream.status, 404);
  assert.match(stream.text, /no active task stream/);
});

test("501: source lists planes without plane:<type>; pmtu also names agents older than 2.5.0", async () => {
  const icmp = await post({ ...ok, type: "icmp" });
  assert.equal(icmp.status, 501);
  assert.match(icmp.text, /icmp/);
  assert.match(icmp.text, /checkers\.icmp\.enabled=false/);
  const pmtu = await post({ ...ok, type: "pmtu" });
  assert.equal(pmtu.status, 501);
  assert.match(pmtu.text, /checkers\.pmtu\.enabled=false/);
  assert.match(pmtu.text, /older than 2\.5\.0/);
});

test("501: external destination from a source lacking external-checks", async () => {
  const res = await post({
    ...ok,
    destination: "example",
    destinationKind: "external",
    destinationAddress: "198.18.0.99",
  });
  assert.equal(res.status, 501);
  assert.match(res.text, /external-checks/);
});

test("503 `not the leader` (text/plain) on a standby, whatever the body", async () => {
  leader = false;
  try {
    for (const body of [ok, "{bad"]) {
      const res = await post(body);
      assert.equal(res.status, 503);
      assert.equal(res.text, "not the leader");
      assert.match(res.type, /^text\/plain/);
    }
  } finally {
    leader = true;
  }
});

test("timeout query: default 60 s, capped at 120 s, invalid values fall back to 60 s", () => {
  assert.equal(parseTimeoutSeconds(undefined), 60);
  assert.equal(parseTimeoutSeconds("30"), 30);
  assert.equal(parseTimeoutSeconds("0.5"), 0.5);
  assert.equal(parseTimeoutSeconds("500"), 120);
  for (const bad of ["", "abc", "-5", "0", "1e3", "10s"]) assert.equal(parseTimeoutSeconds(bad), 60, bad);
});
