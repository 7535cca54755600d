import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import { Lab, promQuery } from "@svc/lab";
import type { TopologySnapshot } from "@svc/protocol";
import { eventually, needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";
import { scrape } from "../helpers/metrics-text.ts";

const exec = promisify(execFile);
const PROTOCOLS = ["tcp", "udp", "icmp"] as const;
const opts = skipUnless(needsRoot(), needsBinary("/usr/bin/prometheus"), needsBinary("/usr/bin/promtool"));

describe("lab: 3 agents in network namespaces", opts, () => {
  let lab: Lab;
  const fast = { enabled: true, interval: "1s", timeout: "500ms" };

  before(async () => {
    lab = new Lab({
      removeDirOnStop: true,
      agents: 3,
      netns: true,
      scrapeIntervalSeconds: 1,
      console: false,
      config: {
        controller: { agentTtl: "10s" },
        checkers: {
          tcp: fast,
          udp: { ...fast, packets: 3, timeout: "200ms" },
          icmp: fast,
          dns: { interval: "2s" },
        },
      },
    });
    await lab.start();
  });
  after(async () => {
    await lab?.stop();
  });

  test("topology lists 3 nodes and 3 agents with capabilities and ports", async () => {
    const topo = (await (await fetch(`${lab.controllerUrl}/api/v1/topology`)).json()) as TopologySnapshot;
    assert.deepEqual(topo.nodes.map((n) => n.name).sort(), ["node-1", "node-2", "node-3"]);
    assert.equal(topo.agents.length, 3);
    assert.equal(topo.probePlan, undefined);
    for (const a of topo.agents) {
      const node = lab.node(a.nodeName);
      assert.equal(a.podIP, node.address);
      assert.equal(a.httpPort, 8080);
      assert.equal(a.udpPort, 9090);
      assert.equal(a.metricsPort, 9091);
      for (const plane of ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr"]) {
        assert.ok(a.capabilities.includes(plane), `${a.nodeName} lacks ${plane}: ${a.capabilities}`);
      }
    }
    assert.ok(!Number.isNaN(Date.parse(topo.timestamp)));
  });

  test("agents run with the start command's node flags and malloc environment (nothing self-applied)", async () => {
    for (const node of lab.nodes) {
      // `ip netns exec` replaces itself with node: the pid is the agent's node
      const pid = node.process.child.pid;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      for (const flag of AGENT_NODE_FLAGS) assert.ok(cmd.includes(flag), `${node.name}: ${cmd.join(" ")}`);
      for (const [k, v] of Object.entries(AGENT_ENV))
        assert.ok(env.includes(`${k}=${v}`), `${node.name}: ${k}`);
    }
  });

  test("every ordered pair succeeds on tcp, udp and icmp (read from Prometheus)", async () => {
    for (const p of PROTOCOLS) {
      await eventually(
        `${p}: 6 ordered pairs with successes and no failures in the last 5s`,
        async () => {
          const ok = await promQuery(
            lab.prometheusUrl!,
            `increase(svc_${p}_results_total{result="success"}[5s]) > 0`,
          );
          const fail = await promQuery(
            lab.prometheusUrl!,
            `increase(svc_${p}_results_total{result="fail"}[5s]) > 0`,
          );
          return ok.length === 6 && fail.length === 0 ? true : undefined;
        },
        60_000,
        1000,
      );
    }
  });

  test("dropping UDP on one ordered pair shows loss 1 for exactly that pair; tcp and icmp stay healthy", async () => {
    await lab.fault({ kind: "drop", from: "node-1", to: "node-2", protocol: "udp" });
    try {
      const lossy = await eventually(
        "svc_udp_packet_loss_ratio == 1 for node-1 -> node-2",
        async () => {
          const r = await promQuery(lab.prometheusUrl!, "svc_udp_packet_loss_ratio == 1");
          return r.length > 0 ? r : undefined;
        },
        15_000,
        500,
      );
      assert.deepEqual(
        lossy.map((s) => `${s.metric.source_node}->${s.metric.destination_node}`),
        ["node-1->node-2"],
      );
      const healthy = await promQuery(lab.prometheusUrl!, "svc_udp_packet_loss_ratio < 1");
      assert.equal(healthy.length, 5, "the other five ordered pairs keep answering");
      for (const p of ["tcp", "icmp"]) {
        const sel = `source_node="node-1",destination_node="node-2"`;
        const fails = await promQuery(
          lab.prometheusUrl!,
          `increase(svc_${p}_results_total{${sel},result="fail"}[5s])`,
        );
        assert.ok(
          fails.every((s) => s.value === 0),
          `${p} failed on the pair while only udp was dropped`,
        );
        const oks = await promQuery(
          lab.prometheusUrl!,
          `increase(svc_${p}_results_total{${sel},result="success"}[5s])`,
        );
        assert.ok(oks.length === 1 && oks[0]!.value > 0, `${p} still succeeds on node-1 -> node-2`);
      }
    } finally {
      await lab.heal();
    }
    await eventually(
      "udp loss back below 1 after heal",
      async () =>
        (await promQuery(lab.prometheusUrl!, "svc_udp_packet_loss_ratio == 1")).length === 0
          ? true
          : undefined,
      15_000,
    );
  });

  test("promtool check metrics passes on agent and controller /metrics", async () => {
    for (const url of [`${lab.node("node-1").metricsUrl}/metrics`, `${lab.controllerMetricsUrl}/metrics`]) {
      const text = await (await fetch(url)).text();
      const child = exec("promtool", ["check", "metrics"]);
      child.child.stdin?.end(text);
      const { stdout, stderr } = await child.catch((err: { stdout: string; stderr: string }) => {
        assert.fail(`promtool check metrics failed for ${url}:\n${err.stdout}${err.stderr}`);
      });
      assert.equal(`${stdout}${stderr}`.trim(), "", `promtool output for ${url}`);
    }
  });

  test("a SIGKILLed agent leaves the topology after the TTL and its series leave the others' /metrics", async () => {
    const victim = lab.node("node-3");
    const before3 = await scrape(`${lab.node("node-1").metricsUrl}/metrics`);
    assert.ok(
      before3.some((s) => s.labels.destination_node === "node-3"),
      "node-1 measured node-3 before",
    );
    victim.process.child.kill("SIGKILL");
    const started = Date.now();
    await eventually(
      "node-3 gone from topology",
      async () => {
        const topo = (await (await fetch(`${lab.controllerUrl}/api/v1/topology`)).json()) as TopologySnapshot;
        return topo.agents.some((a) => a.nodeName === "node-3") ? undefined : true;
      },
      25_000,
    );
    assert.ok(Date.now() - started >= 5_000, "evicted by TTL, not instantly (no deregistration happened)");
    for (const n of ["node-1", "node-2"]) {
      await eventually(
        `${n} dropped node-3 series`,
        async () => {
          const samples = await scrape(`${lab.node(n).metricsUrl}/metrics`);
          return samples.some((s) => s.labels.destination_node === "node-3") ? undefined : true;
        },
        10_000,
      );
    }
  });
});
