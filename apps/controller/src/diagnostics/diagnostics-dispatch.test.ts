import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import type { TaskMessage } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { EventWatch, payloadOf } from "../events/testdata/event-watch.ts";
import { testConfig } from "../testing/test-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import type { CheckResult } from "./check-result.ts";
import { TaskAgent, type TaskHandler } from "./testdata/task-agent.ts";

let leader = true;
const c = new Controller({
  config: testConfig({ eventsEnabled: true }),
  version: { version: "2.5.0", commit: "t" },
  grpcHost: "127.0.0.1",
  httpHost: "127.0.0.1",
  isLeader: () => leader,
  // leadership flips for the length of one check here, to see that check answered 503; a real loss (which ends
  // the agents' streams and forgets the registry) is leader-failover's subject, so it is not followed here
  leadershipPollMs: 3_600_000,
});
let handler: TaskHandler = () => ({ success: true });
const agents: TaskAgent[] = [];
let src: TaskAgent;
let events: EventWatch;

before(async () => {
  await c.start();
  const caps = ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr", "external-checks"];
  src = await TaskAgent.start(c, { node_name: "src", zone: "z1", capabilities: caps }, (t, a) =>
    handler(t, a),
  );
  agents.push(src);
  const dst = {
    node_name: "dst",
    advertise_address: "198.18.0.11",
    zone: "z2",
    http_port: 8081,
    udp_port: 9999,
  };
  agents.push(await TaskAgent.start(c, dst, () => undefined, false));
  agents.push(await TaskAgent.start(c, { node_name: "old", capabilities: [] }, () => ({ success: true })));
  events = new EventWatch(c.grpcPort);
  await events.opened();
});
after(async () => {
  events.close();
  for (const a of agents) a.close();
  await c.stop();
});

async function post(body: unknown, query = ""): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}/api/v1/diagnostics${query}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** One raw HTTP/1.1 diagnostics request src -> dst. */
function rawPost(type: string, query = ""): string {
  const body = JSON.stringify({ source: "src", destination: "dst", type });
  return `POST /api/v1/diagnostics${query} HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
}

async function metric(type: string, result: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text();
  const m = text.match(
    new RegExp(`^svc_controller_diagnostics_total\\{type="${type}",result="${result}"\\} (\\d+)$`, "m"),
  );
  return m ? Number(m[1]) : 0;
}

test("200: the agent's payload becomes the CheckResult; node destinations probed at podIP and reported port", async () => {
  const ts = Date.UTC(2026, 0, 2, 3, 4, 5) * 1_000_000;
  handler = () => ({
    success: true,
    duration_ns: 2_500_000,
    details_json: JSON.stringify({ rtt: 1_500_000, lossRatio: 0 }),
    timestamp_unix_ns: ts,
  });
  const res = await post({ source: "src", destination: "dst", type: "icmp" });
  assert.equal(res.status, 200, res.text);
  const r = JSON.parse(res.text) as CheckResult;
  assert.deepEqual(r, {
    type: "icmp",
    success: true,
    source: "src",
    destination: "dst",
    sourceZone: "z1",
    destZone: "z2",
    duration: 2_500_000,
    details: { rtt: 1_500_000, lossRatio: 0 },
    timestamp: "2026-01-02T03:04:05.000Z",
  });
  const ev = await events.waitFor((e) => e.type === "CheckObserved", "CheckObserved");
  assert.equal(ev.topic, "checks");
  assert.equal(ev.scope, "src->dst");
  assert.equal(payloadOf(ev).destination, "dst");

  handler = () => ({ success: true });
  await post({ source: "src", destination: "dst", type: "tcp" });
  await post({ source: "src", destination: "dst", type: "udp" });
  const [tcp, udp] = src.tasks.slice(-2) as [TaskMessage, TaskMessage];
  assert.deepEqual(
    [tcp.type, tcp.address, tcp.port, tcp.destination_kind],
    ["tcp", "198.18.0.11", 8081, "node"],
  );
  assert.deepEqual([udp.type, udp.address, udp.port], ["udp", "198.18.0.11", 9999]);
  assert.ok(tcp.timeout_ns > 0 && tcp.timeout_ns <= 60e9);
  assert.ok((await metric("icmp", "success")) >= 1);
});

test("200 with success=false; a payload-less result is built from the task", async () => {
  handler = () => ({ success: false, error: "connection refused" });
  const before = Date.now();
  const res = await post({ source: "src", destination: "dst", type: "tcp" });
  assert.equal(res.status, 200);
  const r = JSON.parse(res.text) as CheckResult;
  assert.equal(r.success, false);
  assert.equal(r.error, "connection refused");
  assert.deepEqual(
    [r.type, r.source, r.destination, r.sourceZone, r.destZone],
    ["tcp", "src", "dst", "z1", "z2"],
  );
  assert.deepEqual(r.details, {});
  assert.ok(Number.isInteger(r.duration) && r.duration > 0);
  const at = Date.parse(r.timestamp);
  assert.ok(at >= before - 1000 && at <= Date.now() + 1000, r.timestamp);
  assert.ok((await metric("tcp", "fail")) >= 1);
});

test("external destination: reported by name, probed at the address; mtr publishes MTRCompleted", async () => {
  handler = () => ({ success: false, error: "mtr not implemented yet" });
  const body = {
    source: "src",
    destination: "example",
    type: "mtr",
    destinationKind: "external",
    destinationAddress: "198.18.0.99",
  };
  const res = await post(body);
  assert.equal(res.status, 200);
  const r = JSON.parse(res.text) as CheckResult;
  assert.equal(r.destination, "example");
  assert.equal(r.destZone, "external");
  assert.ok(!res.text.includes("198.18.0.99"));
  const task = src.tasks.at(-1);
  assert.deepEqual(
    [task?.address, task?.destination, task?.destination_kind],
    ["198.18.0.99", "example", "external"],
  );
  const ev = await events.waitFor((e) => e.type === "MTRCompleted", "MTRCompleted");
  assert.equal(ev.topic, "mtr");
  assert.equal(ev.scope, "src->example");
  assert.ok(!ev.payload_json.includes("198.18.0.99"));
});

test("an agent that lists no planes is dispatched anyway", async () => {
  const res = await post({ source: "old", destination: "dst", type: "pmtu" });
  assert.equal(res.status, 200, res.text);
});

test("502 when the agent's task stream goes away before the result", async () => {
  handler = (_t, a) => {
    a.closeStream();
    return undefined;
  };
  const res = await post({ source: "src", destination: "dst", type: "tcp" });
  assert.equal(res.status, 502);
  assert.match(res.text, /dispatch failed/);
  handler = () => ({ success: true });
  src.watch((t, a) => handler(t, a));
  await waitUntil(() => c.tasks.hasStream(src.agentId), "task stream back");
});

test("504 when the agent does not answer within the timeout query", async () => {
  handler = () => undefined;
  const res = await post({ source: "src", destination: "dst", type: "udp" }, "?timeout=0.3");
  assert.equal(res.status, 504);
  assert.equal(await metric("udp", "timeout"), 1);
});

test("503 when leadership is lost mid-check; the result is still published", async () => {
  handler = () => {
    leader = false;
    return { success: true, details_json: JSON.stringify({ marker: "lost" }) };
  };
  try {
    const res = await post({ source: "src", destination: "dst", type: "tcp" });
    assert.equal(res.status, 503);
    assert.match(res.text, /not the leader/);
  } finally {
    leader = true;
  }
  await events.waitFor(
    (e) => e.payload_json.includes('"marker":"lost"'),
    "CheckObserved after leadership loss",
  );
});

test("a caller that disconnects before the answer is counted cancelled", async () => {
  const sock = net.connect(c.httpPort, "127.0.0.1");
  sock.on("error", () => {});
  handler = async () => {
    sock.destroy();
    await new Promise((r) => setTimeout(r, 200));
    return { success: true, details_json: JSON.stringify({ marker: "cancelled" }) };
  };
  sock.write(rawPost("icmp"));
  await waitUntil(async () => (await metric("icmp", "cancelled")) === 1, "cancelled counted");
  await events.waitFor(
    (e) => e.payload_json.includes('"marker":"cancelled"'),
    "CheckObserved of the cancelled check",
  );
});

test("an answer that cannot be written counts undelivered and emits DiagnosticProgress undelivered", async () => {
  // Two pipelined requests on one connection: the tcp answer is ready but queued behind the unanswered udp
  // one when the caller hangs up, so it cannot be written; the udp one never got an answer: cancelled.
  handler = (t) =>
    t.type === "tcp" ? { success: true, details_json: JSON.stringify({ marker: "queued" }) } : undefined;
  const sock = net.connect(c.httpPort, "127.0.0.1");
  sock.on("error", () => {});
  sock.write(rawPost("udp", "?timeout=0.5") + rawPost("tcp"));
  await events.waitFor(
    (e) => e.payload_json.includes('"marker":"queued"'),
    "CheckObserved of the queued answer",
  );
  sock.resetAndDestroy();
  const ev = await events.waitFor((e) => e.type === "DiagnosticProgress", "DiagnosticProgress");
  assert.equal(ev.topic, "diagnostics");
  const p = payloadOf(ev);
  assert.deepEqual([p.state, p.type, p.source, p.destination], ["undelivered", "tcp", "src", "dst"]);
  assert.equal(await metric("tcp", "undelivered"), 1);
  await waitUntil(
    async () => (await metric("udp", "cancelled")) === 1,
    "unanswered pipelined request cancelled",
  );
});
