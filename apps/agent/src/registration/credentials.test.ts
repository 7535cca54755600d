import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { TlsFiles } from "@svc/core";
import { createAgentServiceClient, grpc } from "@svc/protocol";
import {
  gatewayConfig,
  register,
  startGatewayRig,
  statusOf,
  TOKEN,
} from "../../../controller/src/gateway/testdata/gateway-rig.ts";
import { TestPki } from "../../../controller/src/gateway/testdata/test-pki.ts";
import { AgentDialConfigError, agentCredentials } from "./credentials.ts";

const NO_TLS: TlsFiles = { enabled: false, caFile: "", certFile: "", keyFile: "", serverName: "" };

describe("agent dial credentials", () => {
  let pki: TestPki;
  let rig: Awaited<ReturnType<typeof startGatewayRig>>;
  let tokenFile = "";
  before(async () => {
    pki = new TestPki();
    rig = await startGatewayRig(gatewayConfig(pki, { clientCa: true }));
    tokenFile = pki.file("agent-token", `  ${TOKEN}\n`);
  });
  after(async () => {
    await rig.stop();
    pki.remove();
  });

  function refusedWith(fn: () => unknown, key: string): void {
    assert.throws(fn, (err: unknown) => {
      assert.ok(err instanceof AgentDialConfigError, String(err));
      assert.ok(err.message.startsWith(`${key}: `), err.message);
      return true;
    });
  }

  test("no TLS key and no token dials in plain text", () => {
    const d = agentCredentials({ tls: NO_TLS, bootstrapTokenFile: "" });
    assert.deepEqual([d.tls, d.token, d.channelOptions], [false, false, {}]);
  });

  test("any TLS key switches TLS on", () => {
    for (const tls of [
      { ...NO_TLS, enabled: true },
      { ...NO_TLS, caFile: pki.ca.certFile },
      { ...NO_TLS, serverName: "localhost" },
    ]) {
      assert.equal(agentCredentials({ tls, bootstrapTokenFile: "" }).tls, true);
    }
    assert.deepEqual(
      agentCredentials({ tls: { ...NO_TLS, serverName: "gw.example" }, bootstrapTokenFile: "" })
        .channelOptions,
      { "grpc.ssl_target_name_override": "gw.example" },
    );
  });

  test("refusals name the key: token without TLS, cert without key, unreadable file, short token", () => {
    refusedWith(
      () => agentCredentials({ tls: NO_TLS, bootstrapTokenFile: tokenFile }),
      "agent.bootstrapTokenFile",
    );
    refusedWith(
      () => agentCredentials({ tls: { ...NO_TLS, certFile: pki.server.certFile }, bootstrapTokenFile: "" }),
      "agent.tls.keyFile",
    );
    refusedWith(
      () =>
        agentCredentials({ tls: { ...NO_TLS, caFile: `${pki.dir}/missing.pem` }, bootstrapTokenFile: "" }),
      "agent.tls.caFile",
    );
    refusedWith(
      () =>
        agentCredentials({
          tls: { ...NO_TLS, enabled: true },
          bootstrapTokenFile: pki.file("short-token", "too-short\n"),
        }),
      "agent.bootstrapTokenFile",
    );
  });

  async function registerWith(tls: TlsFiles, nodeName: string): Promise<grpc.status | "ok"> {
    const dial = agentCredentials({ tls, bootstrapTokenFile: tokenFile });
    const client = createAgentServiceClient(`127.0.0.1:${rig.port}`, dial.credentials, dial.channelOptions);
    try {
      return await statusOf(register(client, { node_name: nodeName }));
    } finally {
      client.close();
    }
  }

  test("CA + client certificate + token register through the gateway; the token reaches the server", async () => {
    const cert = pki.client("agent-edge-9", "edge-9");
    const tls = { ...NO_TLS, caFile: pki.ca.certFile, ...cert };
    assert.equal(await registerWith(tls, "edge-9"), "ok");
    assert.equal(rig.registry.get("edge-9")?.zone, "external");
  });

  test("serverName decides which name the server certificate must carry", async () => {
    const cert = pki.client("agent-edge-10", "edge-10");
    const base = { ...NO_TLS, caFile: pki.ca.certFile, ...cert };
    assert.equal(await registerWith({ ...base, serverName: "localhost" }, "edge-10"), "ok");
    assert.equal(
      await registerWith({ ...base, serverName: "gateway.example" }, "edge-10"),
      grpc.status.UNAVAILABLE,
    );
  });
});
