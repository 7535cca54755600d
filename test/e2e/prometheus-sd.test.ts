import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { freePort } from "@svc/lab";
import { ExternalCheckRunner } from "../../apps/agent/src/external/external-check-runner.ts";
import { MetricRegistry } from "../../apps/agent/src/metrics/store/registry.ts";
import { probeDns } from "../../apps/agent/src/probes/dns.ts";
import { probeHttp } from "../../apps/agent/src/probes/http.ts";
import { probeTcp } from "../../apps/agent/src/probes/tcp.ts";
import { type Harness, startHarness } from "../../apps/controller/src/external/testdata/harness.ts";
import { RawAgentClient, registerRequest } from "../../apps/controller/src/testing/raw-client.ts";
import { eventually, needsBinary, skipUnless } from "../helpers/env.ts";

const PROMETHEUS = "/usr/bin/prometheus";
const AGENT_ID = "edge-agent-1";

interface PromTarget {
  labels: Record<string, string>;
  health: string;
  scrapeUrl: string;
}

describe(
  "Prometheus discovers external agents through GET /api/v1/scrape/sd",
  skipUnless(needsBinary(PROMETHEUS)),
  () => {
    let h: Harness;
    let agentMetrics: http.Server;
    let metricsPort = 0;
    let runner: ExternalCheckRunner;
    let rawClient: RawAgentClient;
    let prom: ChildProcess | undefined;
    let promUrl = "";
    let dir = "";
    let promLog = "";

    before(async () => {
      h = await startHarness();
      // The external agent: a metrics listener on loopback serving a real ExternalCheckRunner's registry.
      const registry = new MetricRegistry();
      agentMetrics = http.createServer(async (_req, res) => {
        res.setHeader("content-type", registry.contentType);
        res.end(await registry.metrics());
      });
      await new Promise<void>((r) => agentMetrics.listen(0, "127.0.0.1", r));
      metricsPort = (agentMetrics.address() as net.AddressInfo).port;
      rawClient = new RawAgentClient(h.grpcPort);
      await rawClient.register(
        registerRequest({
          agent_id: AGENT_ID,
          node_name: "edge-host",
          advertise_address: "127.0.0.1",
          labels: { "svc.io/external": "true", team: "not-copied" },
          capabilities: ["external-checks", "plane:tcp"],
          metrics_port: metricsPort,
          version: "2.5.0",
        }),
      );
      runner = new ExternalCheckRunner({
        controllerAddress: `127.0.0.1:${h.grpcPort}`,
        agentId: () => AGENT_ID,
        metricsRegistry: registry,
        metricsPrefix: "svc",
        sourceNode: "edge-host",
        sourceZone: () => "external",
        probers: { tcp: { probe: probeTcp }, dns: { probe: probeDns }, http: { probe: probeHttp } },
        config: { enabled: true, allowedCidrs: ["127.0.0.0/8"], deniedCidrs: [], maxTargets: 10, timeout: 0 },
      });
      runner.start();
      const put = await fetch(`${h.httpUrl}/api/v1/external-checks`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          agents: {
            [AGENT_ID]: [
              {
                definitionId: "d1",
                target: { name: "own-metrics", kind: "host", address: "127.0.0.1", port: metricsPort },
                checkType: "tcp",
                intervalNs: 500_000_000,
                timeoutNs: 1_000_000_000,
                params: {},
              },
            ],
          },
        }),
      });
      assert.deepEqual(await put.json(), { agents: 1, changed: 1, unknown: [] });

      dir = mkdtempSync(join(tmpdir(), "svc-prom-sd-"));
      const cfg = [
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "scrape_configs:",
        "  - job_name: svc-external-agents",
        "    http_sd_configs:",
        `      - url: ${h.metricsUrl}/api/v1/scrape/sd`,
        "        refresh_interval: 1s",
      ].join("\n");
      writeFileSync(join(dir, "prometheus.yml"), cfg);
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      prom = spawn(
        PROMETHEUS,
        [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      prom.stderr?.on("data", (d: Buffer) => {
        promLog = (promLog + d.toString()).slice(-4000);
      });
    });

    after(async () => {
      if (prom && prom.exitCode === null) {
        const exited = new Promise((r) => prom?.once("exit", r));
        prom.kill("SIGTERM");
        await exited;
      }
      runner?.stop();
      rawClient?.close();
      await new Promise<void>((r) => (agentMetrics ? agentMetrics.close(() => r()) : r()));
      await h?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("the external agent is an active, healthy target carrying node, zone, external, agent_id", async () => {
      const target = await eventually(
        `prometheus lists the agent as a healthy target (log: ${promLog.slice(-500)})`,
        async () => {
          const res = await fetch(`${promUrl}/api/v1/targets?state=active`);
          const body = (await res.json()) as { data: { activeTargets: PromTarget[] } };
          return body.data.activeTargets.find((t) => t.labels.agent_id === AGENT_ID && t.health === "up");
        },
        20_000,
        250,
      );
      assert.equal(target.scrapeUrl, `http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(target.labels.node, "edge-host");
      assert.equal(target.labels.zone, "external");
      assert.equal(target.labels.external, "true");
      assert.equal(target.labels.team, undefined, "the agent's own labels are never copied");
    });

    test("PromQL returns the agent's external-check series with the discovery labels", async () => {
      const q = 'svc_external_results_total{target="own-metrics",result="success"}';
      const series = await eventually(
        "the scraped external-check series",
        async () => {
          const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
          const body = (await res.json()) as {
            data: { result: { metric: Record<string, string>; value: [number, string] }[] };
          };
          const hit = body.data.result[0];
          return hit && Number(hit.value[1]) >= 1 ? hit : undefined;
        },
        20_000,
        250,
      );
      assert.equal(series.metric.node, "edge-host");
      assert.equal(series.metric.zone, "external");
      assert.equal(series.metric.external, "true");
      assert.equal(series.metric.agent_id, AGENT_ID);
      assert.equal(series.metric.job, "svc-external-agents");
      assert.equal(series.metric.check_type, "tcp");
      assert.equal(series.metric.source_node, "edge-host");
    });
  },
);
