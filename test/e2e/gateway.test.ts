// External agents through the gateway: a real Controller (main listener, HTTP API, diagnostics) and an
// ExternalGateway serving AgentService + TaskService over the controller's own registry and task dispatcher.
// The Controller does not expose its peer broadcaster, so the gateway's AgentService gets a second
// PeerBroadcaster on the same registry: every agent, whichever listener it came through, sees every other.
import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import { RegistrationClient } from "../../apps/agent/src/registration/client.ts";
import { agentCredentials } from "../../apps/agent/src/registration/credentials.ts";
import { AgentTaskRunner } from "../../apps/agent/src/tasks/task-runner.ts";
import { parseArgs } from "../../apps/cli/src/args.ts";
import { checkCommand } from "../../apps/cli/src/check-command.ts";
import { captureIo } from "../../apps/cli/src/testdata/capture-io.ts";
import { Controller } from "../../apps/controller/src/controller.ts";
import { register, statusOf, TOKEN } from "../../apps/controller/src/gateway/testdata/gateway-rig.ts";
import { type CertFiles, TestPki } from "../../apps/controller/src/gateway/testdata/test-pki.ts";
import { testConfig } from "../../apps/controller/src/testing/test-config.ts";
import { waitUntil } from "../../apps/controller/src/testing/wait-until.ts";
import type { TlsFiles } from "../../packages/core/src/index.ts";
import { createAgentServiceClient, grpc, type TopologySnapshot } from "../../packages/protocol/src/index.ts";
import { needsBinary, skipUnless } from "../helpers/env.ts";

const NO_TLS: TlsFiles = { enabled: false, caFile: "", certFile: "", keyFile: "", serverName: "" };

describe("external agent through the gateway", skipUnless(needsBinary("/usr/bin/openssl")), () => {
  let pki: TestPki;
  let c: Controller;
  let target: Server;
  let url = "";
  let gatewayAddress = "";
  const stops: (() => Promise<void>)[] = [];

  const tlsFor = (cert: CertFiles): TlsFiles => ({ ...NO_TLS, caFile: pki.ca.certFile, ...cert });

  before(async () => {
    pki = new TestPki();
    const base = testConfig();
    // the controller's own gateway, as `controller.externalGateway.enabled: true` builds it (port 0 for the test)
    c = new Controller({
      config: {
        ...base,
        controller: {
          ...base.controller,
          externalGateway: {
            enabled: true,
            port: 0,
            tls: {
              certFile: pki.server.certFile,
              keyFile: pki.server.keyFile,
              clientCaFile: pki.ca.certFile,
            },
            bootstrapTokenFile: pki.file("gateway-token", `${TOKEN}\n`),
          },
        },
      },
      version: { version: "2.5.0", commit: "e2e" },
      allowLoopbackAgents: true,
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
      peerDebounceMs: 20,
    });
    await c.start();
    url = `http://127.0.0.1:${c.httpPort}`;
    gatewayAddress = `127.0.0.1:${c.gatewayPort}`;
    // the external agent's TCP probe target (its httpPort)
    target = createServer((s) => s.end());
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  });

  after(async () => {
    for (const stop of stops.reverse()) await stop();
    await c.stop();
    await new Promise<void>((r) => target.close(() => r()));
    pki.remove();
  });

  /** A real agent's registration + task runner: in-cluster (plain, main listener) or external (TLS + token, gateway). */
  function startAgent(nodeName: string, tls: TlsFiles | undefined, zone = ""): RegistrationClient {
    const dial =
      tls === undefined
        ? undefined
        : agentCredentials({ tls, bootstrapTokenFile: pki.file(`${nodeName}-token`, `${TOKEN}\n`) });
    const controllerAddress = tls === undefined ? `127.0.0.1:${c.grpcPort}` : gatewayAddress;
    const port = (target.address() as AddressInfo).port;
    const reg = new RegistrationClient({
      controllerAddress,
      nodeName,
      advertiseAddress: "127.0.0.1",
      zone,
      labels: {},
      capabilities: ["plane:tcp", "plane:mtr"],
      ports: { httpPort: port, udpPort: 0, metricsPort: 0 },
      version: "2.5.0",
      credentials: dial?.credentials,
      agentId: nodeName,
    });
    const tasks = new AgentTaskRunner({
      controllerAddress,
      credentials: dial?.credentials,
      agentId: () => reg.agentId(),
      registered: () => reg.ready(),
      ports: { httpPort: port, udpPort: 0 },
    });
    reg.start();
    tasks.start();
    stops.push(async () => {
      await tasks.stop();
      await reg.stop();
    });
    return reg;
  }

  test("an external agent registers through the gateway and shows in topology as external", async () => {
    const inCluster = startAgent("node-a", undefined, "zone-a");
    const edge = startAgent("edge-1", tlsFor(pki.client("edge-1", "edge-1")));
    await waitUntil(() => inCluster.ready() && edge.ready(), "both agents got a peer list", 10_000);
    assert.equal(edge.zone(), "external");
    await waitUntil(() => c.tasks.hasStream("node-a") && c.tasks.hasStream("edge-1"), "task streams", 10_000);

    const snap = (await (await fetch(`${url}/api/v1/topology`)).json()) as TopologySnapshot;
    const agent = snap.agents.find((a) => a.nodeName === "edge-1");
    assert.ok(agent, JSON.stringify(snap));
    assert.equal(agent.zone, "external");
    assert.equal(agent.labels?.["svc.io/external"], "true");
    assert.equal(snap.agents.find((a) => a.nodeName === "node-a")?.zone, "zone-a");
    assert.equal(snap.nodes.find((n) => n.name === "edge-1")?.zone, "external");
  });

  test("a diagnostic from the in-cluster node to the external agent works (svc check exits 0)", async () => {
    const io = captureIo();
    const argv = ["check", "node-a", "edge-1", "--type", "tcp", "--controller", url, "-o", "json"];
    const code = await checkCommand(parseArgs(argv), io);
    assert.equal(code, 0, `${io.stderr.join("\n")}${io.text()}`);
    const result = JSON.parse(io.text()) as { success: boolean; destZone: string; sourceZone: string };
    assert.deepEqual([result.success, result.sourceZone, result.destZone], [true, "zone-a", "external"]);
  });

  test("and the reverse: the external agent runs a task it got through the gateway", async () => {
    const res = await fetch(`${url}/api/v1/diagnostics?timeout=10`, {
      method: "POST",
      body: JSON.stringify({ source: "edge-1", destination: "node-a", type: "tcp" }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal((JSON.parse(body) as { success: boolean }).success, true);
  });

  test("wrong token, no token, plain text and a certificate for another node are refused", async () => {
    const cert = pki.client("edge-2", "edge-2");
    const tls = tlsFor(cert);
    const dials: [string, grpc.ChannelCredentials, grpc.status][] = [
      [
        "wrong token",
        agentCredentials({ tls, bootstrapTokenFile: pki.file("wrong", "not-the-bootstrap-token") })
          .credentials,
        grpc.status.UNAUTHENTICATED,
      ],
      [
        "no token",
        agentCredentials({ tls, bootstrapTokenFile: "" }).credentials,
        grpc.status.UNAUTHENTICATED,
      ],
      ["plain text", grpc.credentials.createInsecure(), grpc.status.UNAVAILABLE],
      [
        "certificate of another node",
        agentCredentials({
          tls: tlsFor(pki.client("edge-3", "edge-3")),
          bootstrapTokenFile: pki.file("ok", TOKEN),
        }).credentials,
        grpc.status.PERMISSION_DENIED,
      ],
    ];
    for (const [why, creds, want] of dials) {
      const client = createAgentServiceClient(gatewayAddress, creds);
      try {
        assert.equal(
          await statusOf(register(client, { node_name: "edge-2", agent_id: "edge-2" })),
          want,
          why,
        );
      } finally {
        client.close();
      }
    }
    assert.equal(c.registry.get("edge-2"), undefined);
    // the main listener is untouched by the gateway's rules: in-cluster agents still register in plain text
    assert.equal(c.registry.get("node-a")?.labels["svc.io/external"], undefined);
  });
});
