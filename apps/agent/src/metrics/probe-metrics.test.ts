import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { ProbeMetrics } from "./probe-metrics.ts";

const b = { nodeName: "node-b", zone: "z2" };
const c = { nodeName: "node-c", zone: "z3" };

function filled(): ProbeMetrics {
  const m = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" } });
  for (const peer of [b, c]) {
    m.recordTcp(peer, { ok: true, connectMs: 0.4, totalMs: 0.9 });
    m.recordTcp(peer, { ok: false, error: "ECONNREFUSED" });
    m.recordUdp(peer, {
      ok: true,
      sent: 3,
      received: 2,
      lossRatio: 1 / 3,
      rttsMs: [0.2, 0.3],
      jitterMs: 0.1,
    });
    m.recordIcmp(peer, { ok: true, rtts: [0.25], lossRatio: 0 });
    m.recordPmtu(peer, { reading: "reduced", pmtuBytes: 1500, probeBytes: 9000 });
    m.recordMtrTriggered(peer);
    m.recordMtr(peer, [
      { number: 1, ip: "198.18.0.1", rtt: 300_000 },
      { number: 2, ip: "", rtt: 0 },
    ]);
    m.setIntended(peer, ["tcp", "udp"]);
  }
  m.recordDns({ host: "svc-api", resolver: "system", ok: true, durationMs: 1.5, addresses: ["198.18.0.9"] });
  m.recordHttp({
    url: "https://x.test/",
    method: "GET",
    ok: true,
    statusCode: 200,
    connectMs: 1,
    tlsMs: 2,
    ttfbMs: 3,
    totalMs: 4,
  });
  return m;
}

const seriesOf = (text: string, needle: string) =>
  text.split("\n").filter((l) => !l.startsWith("#") && l.includes(needle));

test("a peer's first result creates both result series, the other at 0 (so the first failure is a rise)", async () => {
  const m = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" } });
  const peer = { nodeName: "node-b", zone: "z2" };
  m.recordTcp(peer, { ok: true, connectMs: 1, totalMs: 1 });
  m.recordPmtu(peer, { reading: "blackhole", probeBytes: 1500, pmtuBytes: 1400 });
  const text = await m.metrics();
  assert.match(text, /^svc_tcp_results_total\{[^}]*result="success"\} 1$/m);
  assert.match(text, /^svc_tcp_results_total\{[^}]*result="fail"\} 0$/m);
  assert.match(text, /^svc_pmtu_results_total\{[^}]*result="fail"\} 1$/m);
  assert.match(text, /^svc_pmtu_results_total\{[^}]*result="success"\} 0$/m);
});

test("families and labels follow reference/metrics.md", async () => {
  const text = await filled().metrics();
  const peer = 'source_node="node-a",destination_node="node-b",source_zone="z1",destination_zone="z2"';
  assert.match(text, new RegExp(`^svc_tcp_connect_duration_seconds_bucket\\{le="0.0005",${peer}\\} 1$`, "m"));
  assert.match(text, new RegExp(`^svc_tcp_connect_duration_seconds_count\\{${peer}\\} 1$`, "m"));
  assert.match(text, new RegExp(`^svc_tcp_results_total\\{${peer},result="success"\\} 1$`, "m"));
  assert.match(text, new RegExp(`^svc_tcp_results_total\\{${peer},result="fail"\\} 1$`, "m"));
  assert.match(text, new RegExp(`^svc_udp_rtt_seconds_count\\{${peer}\\} 2$`, "m"));
  assert.match(text, new RegExp(`^svc_udp_jitter_seconds\\{${peer}\\} 0.0001$`, "m"));
  assert.match(text, new RegExp(`^svc_udp_packet_loss_ratio\\{${peer}\\} 0.333`, "m"));
  assert.match(text, new RegExp(`^svc_icmp_packet_loss_ratio\\{${peer}\\} 0$`, "m"));
  assert.match(text, new RegExp(`^svc_pmtu_bytes\\{${peer}\\} 1500$`, "m"));
  assert.match(text, new RegExp(`^svc_mtr_hops\\{${peer}\\} 2$`, "m"));
  assert.match(
    text,
    /^svc_mtr_hop_rtt_seconds\{source_node="node-a",destination_node="node-b",hop_number="1",hop_ip="198.18.0.1"\} 0.0003$/m,
  );
  assert.match(text, new RegExp(`^svc_probe_intended\\{${peer},plane="udp"\\} 1$`, "m"));
  assert.match(
    text,
    /^svc_dns_results_total\{host="svc-api",resolver="system",source_node="node-a",source_zone="z1",result="success"\} 1$/m,
  );
  assert.match(
    text,
    /^svc_http_results_total\{url="https:\/\/x.test\/",method="GET",status_code="200",source_node="node-a",source_zone="z1",result="success"\} 1$/m,
  );
  assert.match(
    text,
    /^svc_http_tls_duration_seconds_count\{url="https:\/\/x.test\/",source_node="node-a",source_zone="z1"\} 1$/m,
  );
  assert.equal(seriesOf(text, "svc_http_dns_duration_seconds_count").length, 0, "no dns phase recorded");
  assert.match(text, /^# TYPE svc_icmp_rtt_seconds histogram$/m);
});

test("the metrics prefix comes from config", async () => {
  const m = new ProbeMetrics({ prefix: "acme_net", source: { nodeName: "a", zone: "" } });
  m.recordTcp(b, { ok: true, connectMs: 1 });
  const text = await m.metrics();
  assert.match(text, /^acme_net_tcp_results_total\{/m);
  assert.doesNotMatch(text, /^svc_/m);
});

test("removePeer drops every series of the departed peer and nothing else", async () => {
  const m = filled();
  m.removePeer("node-b");
  const text = await m.metrics();
  assert.deepEqual(seriesOf(text, 'destination_node="node-b"'), []);
  assert.ok(seriesOf(text, 'destination_node="node-c"').length > 20);
  assert.equal(seriesOf(text, 'host="svc-api"').length > 0, true);
});

test("a peer recorded again after its removal (or a plane's) can be removed again", async () => {
  const m = filled();
  const again = () => {
    m.recordTcp(b, { ok: true, connectMs: 0.4, totalMs: 0.9 });
    m.recordUdp(b, { ok: true, sent: 2, received: 2, lossRatio: 0, rttsMs: [0.2, 0.3], jitterMs: 0.1 });
    m.recordIcmp(b, { ok: false, rtts: [], lossRatio: 1 });
  };
  m.removePeer("node-b");
  again();
  assert.ok(seriesOf(await m.metrics(), 'destination_node="node-b"').length > 10);
  m.removePeer("node-b");
  assert.deepEqual(seriesOf(await m.metrics(), 'destination_node="node-b"'), []);
  again();
  m.removePlane("udp");
  again();
  m.removePeerPlane("node-b", "udp");
  assert.deepEqual(
    seriesOf(await m.metrics(), "svc_udp_").filter((l) => l.includes('"node-b"')),
    [],
  );
  m.removePeer("node-b");
  assert.deepEqual(seriesOf(await m.metrics(), 'destination_node="node-b"'), []);
  // a peer whose zone changed is recorded under the new zone only
  m.recordTcp({ nodeName: "node-c", zone: "z7" }, { ok: true, connectMs: 1 });
  assert.match(
    await m.metrics(),
    /destination_node="node-c",source_zone="z1",destination_zone="z7",result="success"/,
  );
});

test("removePlane drops one plane's series only", async () => {
  const m = filled();
  m.removePlane("udp");
  m.removePlane("http");
  const text = await m.metrics();
  assert.deepEqual(seriesOf(text, "svc_udp_"), []);
  assert.deepEqual(seriesOf(text, "svc_http_"), []);
  assert.ok(seriesOf(text, "svc_tcp_results_total").length > 0);
  assert.ok(seriesOf(text, 'plane="udp"').length > 0, "probe_intended stays");
});

test("a zone learnt later relabels: old-zone series go, intended pairs are re-emitted", async () => {
  const m = filled();
  m.setSource({ nodeName: "node-a", zone: "z9" });
  let text = await m.metrics();
  assert.deepEqual(seriesOf(text, 'source_zone="z1"'), []);
  assert.equal(
    seriesOf(text, 'source_zone="z9"').filter((l) => l.startsWith("svc_probe_intended")).length,
    4,
  );
  m.recordTcp(b, { ok: true, connectMs: 1 });
  text = await m.metrics();
  assert.match(
    text,
    /^svc_tcp_results_total\{source_node="node-a",destination_node="node-b",source_zone="z9",destination_zone="z2",result="success"\} 1$/m,
  );
});

test("udp jitter is removed rather than left stale when a run has < 2 replies", async () => {
  const m = filled();
  m.recordUdp(b, { ok: false, sent: 3, received: 0, lossRatio: 1, rttsMs: [], error: "no reply" });
  const text = await m.metrics();
  assert.deepEqual(
    seriesOf(text, 'svc_udp_jitter_seconds{source_node="node-a",destination_node="node-b"'),
    [],
  );
  assert.match(text, /^svc_udp_packet_loss_ratio\{source_node="node-a",destination_node="node-b".*\} 1$/m);
});

test("exposition passes promtool check metrics", async (t) => {
  const probe = spawnSync("promtool", ["--version"]);
  if (probe.error) {
    if (process.env.CI === "true") assert.fail("promtool not installed (apt-get install prometheus)");
    t.skip("promtool not installed");
    return;
  }
  const text = await filled().metrics();
  const res = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
});

test("peer_problem_ratio: tcp's share of its last two runs failed, udp/icmp's latest loss, no series when fine", async () => {
  const m = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" }, version: "2.5.0" });
  const problem = async (plane: string) =>
    seriesOf(await m.metrics(), `svc_peer_problem_ratio{`).filter((l) => l.includes(`plane="${plane}"`));
  assert.deepEqual(seriesOf(await m.metrics(), "svc_agent_info{"), [
    'svc_agent_info{source_node="node-a",source_zone="z1",version="2.5.0"} 1',
  ]);
  m.recordTcp(b, { ok: false, error: "ETIMEDOUT" });
  assert.equal((await problem("tcp"))[0]?.endsWith(" 0.5"), true, "one failed run: half");
  m.recordTcp(b, { ok: false, error: "ETIMEDOUT" });
  assert.equal((await problem("tcp"))[0]?.endsWith(" 1"), true, "two in a row: failing");
  m.recordTcp(b, { ok: true, connectMs: 0.3, totalMs: 0.5 });
  assert.deepEqual(await problem("tcp"), [], "a success removes the series");
  m.recordUdp(b, { ok: true, sent: 5, received: 4, lossRatio: 0.2, rttsMs: [0.2], jitterMs: undefined });
  assert.deepEqual(await problem("udp"), [
    'svc_peer_problem_ratio{source_node="node-a",destination_node="node-b",source_zone="z1",destination_zone="z2",plane="udp"} 0.2',
  ]);
  m.recordUdp(b, { ok: true, sent: 5, received: 5, lossRatio: 0, rttsMs: [0.2], jitterMs: undefined });
  assert.deepEqual(await problem("udp"), []);
  m.recordUdp(b, { ok: false, sent: 5, received: 0, lossRatio: 1, rttsMs: [], jitterMs: undefined });
  assert.equal((await problem("udp"))[0]?.endsWith(" 1"), true, "nothing came back");
  m.recordPmtu(b, { reading: "blackhole", probeBytes: 1500, pmtuBytes: 1400 });
  assert.equal((await problem("pmtu")).length, 1);
  m.recordPmtu(b, { reading: "ok", probeBytes: 1500, pmtuBytes: 1500 });
  assert.deepEqual(await problem("pmtu"), []);
  m.recordIcmp(c, { ok: false, rtts: [], lossRatio: 1 });
  m.recordIcmp(c, { ok: false, rtts: [], lossRatio: 1 });
  m.removePeer("node-c");
  assert.deepEqual(await problem("icmp"), [], "a departed peer's state goes with it");
  m.setSource({ nodeName: "node-a", zone: "z9" });
  assert.deepEqual(seriesOf(await m.metrics(), "svc_agent_info{"), [
    'svc_agent_info{source_node="node-a",source_zone="z9",version="2.5.0"} 1',
  ]);
});

test("the pair state listener hears exactly what peer_problem_ratio exports, step by step", async () => {
  const heard = new Map<string, number>();
  const m = new ProbeMetrics({
    prefix: "svc",
    source: { nodeName: "node-a", zone: "z1" },
    version: "2.5.0",
    pairState: {
      set: (plane, dest, ratio) =>
        ratio === undefined ? heard.delete(`${plane} ${dest}`) : heard.set(`${plane} ${dest}`, ratio),
      forgetDestination: (dest) => {
        for (const k of [...heard.keys()]) if (k.endsWith(` ${dest}`)) heard.delete(k);
      },
      forgetPlane: (plane) => {
        for (const k of [...heard.keys()]) if (k.startsWith(`${plane} `)) heard.delete(k);
      },
    },
  });
  const exported = async () =>
    new Map(
      seriesOf(await m.metrics(), "svc_peer_problem_ratio{").map((l) => {
        const plane = /plane="([^"]+)"/.exec(l)?.[1];
        const dest = /destination_node="([^"]+)"/.exec(l)?.[1];
        return [`${plane} ${dest}`, Number(l.slice(l.lastIndexOf(" ") + 1))] as const;
      }),
    );
  const steps: [string, () => void][] = [
    ["tcp fails", () => m.recordTcp(b, { ok: false, error: "ETIMEDOUT" })],
    ["tcp fails again", () => m.recordTcp(b, { ok: false, error: "ETIMEDOUT" })],
    [
      "udp loses 20%",
      () =>
        m.recordUdp(b, {
          ok: true,
          sent: 5,
          received: 4,
          lossRatio: 0.2,
          rttsMs: [0.2],
          jitterMs: undefined,
        }),
    ],
    ["icmp to c lost", () => m.recordIcmp(c, { ok: false, rtts: [], lossRatio: 1 })],
    ["pmtu black hole", () => m.recordPmtu(b, { reading: "blackhole", probeBytes: 1500, pmtuBytes: 1400 })],
    ["tcp recovers", () => m.recordTcp(b, { ok: true, connectMs: 0.3, totalMs: 0.5 })],
    ["pmtu ok", () => m.recordPmtu(b, { reading: "ok", probeBytes: 1500, pmtuBytes: 1500 })],
    ["udp plane off", () => m.removePlane("udp")],
    ["c leaves", () => m.removePeer("node-c")],
  ];
  for (const [what, step] of steps) {
    step();
    assert.deepEqual(heard, await exported(), what);
  }
  assert.equal(heard.size, 0);
});
