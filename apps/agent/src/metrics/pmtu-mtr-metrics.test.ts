import assert from "node:assert/strict";
import { test } from "node:test";
import { ProbeMetrics } from "./probe-metrics.ts";

const b = { nodeName: "node-b", zone: "z2" };
const peer = 'source_node="node-a",destination_node="node-b",source_zone="z1",destination_zone="z2"';
const lines = async (m: ProbeMetrics, family: string) =>
  (await m.metrics())
    .split("\n")
    .filter((l) => l.startsWith(`svc_${family}{`) || l.startsWith(`svc_${family} `));
const fresh = () => new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" } });

test("pmtu: success for ok and reduced, fail for a black hole, nothing for a plain failure", async () => {
  const m = fresh();
  m.recordPmtu(b, { reading: "ok", probeBytes: 1500, pmtuBytes: 1500 });
  m.recordPmtu(b, { reading: "reduced", probeBytes: 1500, pmtuBytes: 1400 });
  assert.deepEqual(await lines(m, "pmtu_bytes"), [`svc_pmtu_bytes{${peer}} 1400`]);
  m.recordPmtu(b, { reading: "blackhole", probeBytes: 1500, pmtuBytes: 576 });
  assert.deepEqual(await lines(m, "pmtu_bytes"), [`svc_pmtu_bytes{${peer}} 576`]);
  m.recordPmtu(b, { reading: "failed", probeBytes: 1500 });
  assert.deepEqual(await lines(m, "pmtu_bytes"), [], "nothing crossed: no stale size");
  assert.deepEqual(await lines(m, "pmtu_probe_bytes"), [`svc_pmtu_probe_bytes{${peer}} 1500`]);
  assert.deepEqual(await lines(m, "pmtu_results_total"), [
    `svc_pmtu_results_total{${peer},result="success"} 2`,
    `svc_pmtu_results_total{${peer},result="fail"} 1`,
  ]);
});

test("mtr: a shorter or changed trace replaces the hop series; the peer leaving removes them all", async () => {
  const m = fresh();
  m.recordMtrTriggered(b);
  m.recordMtr(b, [
    { number: 1, ip: "198.18.0.1", rtt: 100_000 },
    { number: 2, ip: "198.18.0.2", rtt: 200_000 },
    { number: 3, ip: "198.18.0.3", rtt: 300_000 },
  ]);
  assert.equal((await lines(m, "mtr_hop_rtt_seconds")).length, 3);
  m.recordMtrTriggered(b);
  m.recordMtr(b, [
    { number: 1, ip: "198.18.0.1", rtt: 150_000 },
    { number: 2, ip: "", rtt: 0 },
    { number: 3, ip: "198.18.0.9", rtt: 250_000 },
  ]);
  const hop = (n: number, ip: string, v: string) =>
    `svc_mtr_hop_rtt_seconds{source_node="node-a",destination_node="node-b",hop_number="${n}",hop_ip="${ip}"} ${v}`;
  assert.deepEqual(await lines(m, "mtr_hop_rtt_seconds"), [
    hop(1, "198.18.0.1", "0.00015"),
    hop(3, "198.18.0.9", "0.00025"),
  ]);
  assert.deepEqual(await lines(m, "mtr_hops"), [`svc_mtr_hops{${peer}} 3`]);
  assert.deepEqual(await lines(m, "mtr_triggered_total"), [`svc_mtr_triggered_total{${peer}} 2`]);
  m.removePeer("node-b");
  const text = await m.metrics();
  assert.doesNotMatch(text, /^svc_mtr_\w+\{/m);
});
