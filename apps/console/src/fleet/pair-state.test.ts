/**
 * The fleet's "now" read from the pair state agents export (issue 35), on the real Prometheus: a mixed fleet where
 * a and b export agent_info and peer_problem_ratio and c is an older agent (counters only, spec §9). Each pair's
 * tier must come out as the tier rules say from either source of truth.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { FleetProtocol } from "@svc/contract";
import { freePort, type ManagedProcess, promQuery, startPrometheus, stopProcess } from "@svc/lab";
import { needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import { pairKey } from "./figure-map.ts";
import { fleetFigures } from "./figures.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { type Exporter, peer, startExporter } from "./testdata/exposition.ts";
import { verdictOf } from "./tiers.ts";

const PROM = "/usr/bin/prometheus";
const opts = skipUnless(needsBinary(PROM));
const zone = () => "z";
const NODES = ["a", "b", "c"];
const expected = new Map(NODES.map((s) => [s, NODES.filter((d) => d !== s)]));

/** Exposition: every pair measured; a and b export their state. */
function render(n: number): string {
  const out = ['svc_agent_info{source_node="a",source_zone="z",version="2.5.0"} 1'];
  out.push('svc_agent_info{source_node="b",source_zone="z",version="2.5.0"} 1');
  for (const [s, ds] of expected)
    for (const d of ds) {
      const l = peer(s, d, zone);
      // a -> b: tcp down for good; c -> a (older agent): tcp down too, told by its counters only; b -> a: its
      // counters hold failures but its state says it recovered; a -> c: its counters are clean but its state says
      // it just went down (the window has not seen it yet)
      const tcpDown = (s === "a" && d === "b") || (s === "c" && d === "a") || (s === "b" && d === "a");
      out.push(`svc_tcp_results_total{${l},result="success"} ${tcpDown ? 0 : n}`);
      out.push(`svc_tcp_results_total{${l},result="fail"} ${tcpDown ? n : 0}`);
      out.push(
        `svc_udp_results_total{${l},result="success"} ${n}`,
        `svc_udp_results_total{${l},result="fail"} 0`,
      );
      const udpLoss = s === "b" && d === "c" ? 0.4 : 0;
      out.push(`svc_udp_packet_loss_ratio{${l}} ${udpLoss}`);
      out.push(
        `svc_pmtu_probe_bytes{${l}} 1500`,
        `svc_pmtu_bytes{${l}} ${s === "b" && d === "a" ? 1400 : 1500}`,
      );
      const black = s === "b" && d === "a";
      out.push(`svc_pmtu_results_total{${l},result="success"} ${black ? 0 : n}`);
      out.push(`svc_pmtu_results_total{${l},result="fail"} ${black ? n : 0}`);
      if (s === "c") continue; // the older agent exports no state
      if ((s === "a" && d === "b") || (s === "a" && d === "c"))
        out.push(`svc_peer_problem_ratio{${l},plane="tcp"} 1`);
      if (s === "a" && d === "c") out.push(`svc_peer_problem_ratio{${l},plane="pmtu"} 1`);
      if (s === "b" && d === "c") out.push(`svc_peer_problem_ratio{${l},plane="tcp"} 0.5`);
      if (udpLoss > 0) out.push(`svc_peer_problem_ratio{${l},plane="udp"} ${udpLoss}`);
      if (black) out.push(`svc_peer_problem_ratio{${l},plane="pmtu"} 1`);
    }
  return `${out.join("\n")}\n`;
}

let exporter: Exporter;
let proc: ManagedProcess | undefined;
let dir = "";
let client: PrometheusClient;

before(async () => {
  if (opts.skip) return;
  exporter = await startExporter(render);
  dir = mkdtempSync(join(tmpdir(), "svc-pair-state-"));
  const started = await startPrometheus({
    binary: PROM,
    dir,
    port: await freePort(),
    targets: [{ job: "agents", targets: [exporter.target] }],
    intervalSeconds: 1,
    rules: [],
  });
  proc = started.process;
  client = new PrometheusClient({ url: started.url, queryTimeoutMs: 10_000, maxResponseBytes: 1 << 22 });
  const deadline = Date.now() + 60_000;
  while (
    (await promQuery(started.url, "count(svc_tcp_results_total)").catch(() => []))[0]?.value !== 12 ||
    exporter.scrapes() < 4
  ) {
    if (Date.now() > deadline) throw new Error("prometheus did not store the fixture's scrapes in 60 s");
    await new Promise((r) => setTimeout(r, 500));
  }
});
after(async () => {
  if (proc) await stopProcess(proc);
  await exporter?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tier = async (protocol: FleetProtocol, s: string, d: string) => {
  const map = await fleetFigures(client, "svc", protocol, expected);
  return { v: verdictOf(protocol, map.get(pairKey(s, d))), f: map.get(pairKey(s, d)) };
};

test(
  "a stateful source's failing pair is failing from its state, an older source's from its counters",
  opts,
  async () => {
    assert.equal((await tier("tcp", "a", "b")).v.tier, "failing");
    assert.equal((await tier("tcp", "c", "a")).v.tier, "failing", "the older agent, read from its counters");
    assert.equal(
      (await tier("tcp", "a", "c")).v.tier,
      "failing",
      "its state is newer than the counters' window",
    );
    const recovered = await tier("tcp", "b", "a");
    assert.equal(recovered.f?.recent, "ok", "failures in the window, none now");
    assert.equal(recovered.v.tier, "degraded");
    assert.equal((await tier("tcp", "c", "b")).v.tier, "healthy");
  },
);

test("mixed latest tcp results read as mixed; partial udp loss as the latest loss", opts, async () => {
  const mixed = await tier("tcp", "b", "c");
  assert.equal(mixed.f?.recent, undefined);
  const lossy = await tier("udp", "b", "c");
  assert.equal(lossy.f?.lossRatio, 0.4);
  assert.equal(lossy.v.tier, "degraded");
  assert.equal((await tier("udp", "a", "b")).f?.lossRatio, 0, "no state: no loss now");
});

test(
  "a path-MTU black hole is read from the state, without waiting for the 15-minute window",
  opts,
  async () => {
    const black = await tier("pmtu", "b", "a");
    assert.equal(black.v.tier, "failing");
    assert.equal(black.v.pmtu?.badge, "Black hole");
    assert.equal((await tier("pmtu", "a", "b")).v.tier, "healthy");
    assert.equal((await tier("pmtu", "a", "c")).v.pmtu?.badge, "Black hole", "from the state alone");
  },
);

test(
  "a source that reports its state to the controller: its report wins over what the metrics hold",
  opts,
  async () => {
    // a reports: a -> b fine now (its exported state and counters still say down), a -> c down; c (an older
    // agent by its metrics) reports too: c -> b down, while its counters are clean; b does not report
    const pushed = {
      sources: ["a", "c"],
      problems: [
        { source: "a", destination: "c", plane: "tcp" as const, ratio: 1 },
        { source: "c", destination: "b", plane: "tcp" as const, ratio: 1 },
        { source: "b", destination: "a", plane: "tcp" as const, ratio: 1 }, // b is not a reporting source
        { source: "a", destination: "b", plane: "udp" as const, ratio: 1 }, // another plane
      ],
    };
    const map = await fleetFigures(client, "svc", "tcp", expected, undefined, pushed);
    const v = (s: string, d: string) => verdictOf("tcp", map.get(pairKey(s, d)));
    assert.equal(map.get(pairKey("a", "b"))?.recent, "ok", "reported fine now, failures in the window");
    assert.equal(v("a", "b").tier, "degraded");
    assert.equal(v("a", "c").tier, "failing");
    assert.equal(v("c", "b").tier, "failing", "reported down: no counter read decides it");
    assert.equal(map.get(pairKey("b", "a"))?.recent, "ok", "b's own exported state, not a report naming b");
    const udp = await fleetFigures(client, "svc", "udp", expected, undefined, pushed);
    assert.equal(verdictOf("udp", udp.get(pairKey("a", "b"))).tier, "failing");
    assert.equal(udp.get(pairKey("b", "c"))?.lossRatio, 0.4, "b does not report: its exported loss");
  },
);
