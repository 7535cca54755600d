import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import type { TopologySnapshot } from "@svc/protocol";
import { parseArgs, UsageError } from "./args.ts";
import { resolveControllerUrl } from "./controller-client.ts";
import { captureIo } from "./testdata/capture-io.ts";
import { topologyCommand } from "./topology-command.ts";

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("svc topology against a real controller", () => {
  let c: Controller;
  let url = "";
  before(async () => {
    c = new Controller({
      config: testConfig(),
      version: { version: "2.5.0", commit: "test" },
      allowLoopbackAgents: true,
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
    });
    await c.start();
    url = `http://127.0.0.1:${c.httpPort}`;
    const raw = new RawAgentClient(c.grpcPort);
    try {
      await raw.register(
        registerRequest({
          node_name: "node-a",
          advertise_address: "198.18.0.1",
          zone: "zone-1",
          capabilities: ["plane:tcp", "plane:udp", "plane:mtr", "external-checks"],
          http_port: 8080,
          udp_port: 9090,
          metrics_port: 9091,
          version: "2.5.0",
        }),
      );
      await raw.register(
        registerRequest({
          node_name: "edge-1",
          agent_id: "edge-agent",
          advertise_address: "198.18.0.50",
          labels: { "svc.io/external": "true" },
          capabilities: ["plane:icmp", "plane:mtr"],
          metrics_port: 9100,
        }),
      );
      await raw.register(
        registerRequest({ node_name: "old-node", advertise_address: "198.18.0.2", zone: "zone-1" }),
      );
    } finally {
      raw.close();
    }
  });
  after(() => c.stop());

  test("prints one row per agent with zone, readiness, address, capabilities and ports", async () => {
    const io = captureIo();
    assert.equal(await topologyCommand(parseArgs(["topology", "--controller", url]), io), 0);
    const lines = io.stdout;
    assert.match(lines[0] ?? "", /^NAME\s+ZONE\s+READY\s+ADDRESS\s+CAPABILITIES\s+PORTS$/);
    const row = (name: string): string => lines.find((l) => l.startsWith(`${name} `)) ?? "";
    assert.match(
      row("node-a"),
      /node-a\s+zone-1\s+yes\s+198\.18\.0\.1\s+tcp,udp,mtr \+ext\s+http=8080 udp=9090 metrics=9091$/,
    );
    assert.match(
      row("edge-1"),
      /edge-1 \(edge-agent\)\s+external\s+\S+\s+198\.18\.0\.50\s+icmp,mtr\s+metrics=9100$/,
    );
    assert.match(row("old-node"), /old-node\s+zone-1\s+\S+\s+198\.18\.0\.2\s+none reported\s+-$/);
    // sorted by zone: external before zone-1
    assert.ok(lines.indexOf(row("edge-1")) < lines.indexOf(row("node-a")));
    assert.equal(lines.at(-1), "3 nodes, 3 agents");
    assert.deepEqual(io.stderr, []);
  });

  test("-o json and --output json print the snapshot the API serves", async () => {
    const direct = (await (await fetch(`${url}/api/v1/topology`)).json()) as TopologySnapshot;
    for (const argv of [
      ["topology", "-o", "json", "--controller", url],
      ["topology", "--controller", url, "--output", "json"],
      ["topology", "--controller", url, "-ojson"],
    ]) {
      const io = captureIo();
      assert.equal(await topologyCommand(parseArgs(argv), io), 0);
      const snap = JSON.parse(io.text()) as TopologySnapshot;
      assert.deepEqual({ ...snap, timestamp: "" }, { ...direct, timestamp: "" });
      assert.equal(snap.agents.find((a) => a.nodeName === "edge-1")?.zone, "external");
    }
  });

  test("an unreachable controller exits 1 with the reason; bad options are usage errors", async () => {
    const io = captureIo();
    const deadUrl = `http://127.0.0.1:${await closedPort()}`;
    assert.equal(await topologyCommand(parseArgs(["topology", "--controller", deadUrl]), io), 1);
    assert.equal(
      io.stderr.join("\n"),
      `svc topology: cannot reach the controller at ${deadUrl}: ECONNREFUSED`,
    );
    for (const argv of [
      ["topology", "-o", "yaml"],
      ["topology", "--bogus"],
      ["topology", "extra"],
      ["topology", "--controller", "ftp://x"],
    ]) {
      await assert.rejects(topologyCommand(parseArgs(argv), captureIo()), UsageError, argv.join(" "));
    }
  });

  test("controller URL: flag, else SVC_CONTROLLER_URL, else http://127.0.0.1:8080", () => {
    assert.equal(resolveControllerUrl("http://a:1/", { SVC_CONTROLLER_URL: "http://b:2" }), "http://a:1");
    assert.equal(resolveControllerUrl(undefined, { SVC_CONTROLLER_URL: "https://b:2" }), "https://b:2");
    assert.equal(resolveControllerUrl(undefined, {}), "http://127.0.0.1:8080");
    assert.equal(resolveControllerUrl("not a url", {}), undefined);
  });
});
