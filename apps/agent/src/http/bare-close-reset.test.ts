import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { hasSs, socketsOnPort } from "../../../../test/helpers/tcp-states.ts";
import { ProbeMetrics } from "../metrics/probe-metrics.ts";
import { probeTcp } from "../probes/tcp.ts";
import { createAgentHttpServers } from "./agent-servers.ts";

function servers() {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "node-a", zone: "z1" } });
  return createAgentHttpServers({
    httpPort: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    registry: metrics.registry,
    isReady: () => true,
    version: { version: "2.5.0", commit: "abc1234" },
  });
}

test("a peer's tcp probe of the agent's http port gets its connect and total times, and leaves no TIME_WAIT", {
  skip: hasSs() ? false : "ss not installed",
}, async () => {
  const s = servers();
  await s.start();
  try {
    for (const port of [s.httpPort, s.metricsPort]) {
      for (let i = 0; i < 5; i++) {
        const r = await probeTcp({ address: "127.0.0.1", port, timeoutMs: 2000 });
        assert.equal(r.ok, true, r.error);
        assert.ok(r.connectMs !== undefined && r.totalMs !== undefined && r.totalMs >= r.connectMs);
      }
      assert.deepEqual(await socketsOnPort(port, "time-wait"), [], `port ${port}`);
    }
  } finally {
    await s.stop();
  }
});

test("a client that sent a request and closes gets its whole response and an orderly FIN", async () => {
  const s = servers();
  await s.start();
  try {
    const { data, end } = await new Promise<{ data: string; end: string }>((resolve, reject) => {
      const c = net.connect({ host: "127.0.0.1", port: s.httpPort });
      let data = "";
      c.setEncoding("utf8");
      c.on("data", (d: string) => {
        data += d;
      });
      c.on("connect", () => c.end("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"));
      c.on("end", () => resolve({ data, end: "fin" }));
      c.on("error", (e: NodeJS.ErrnoException) =>
        e.code === "ECONNRESET" ? resolve({ data, end: "reset" }) : reject(e),
      );
    });
    assert.equal(end, "fin");
    assert.match(data, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(data, /\r\n\r\nok$/);
  } finally {
    await s.stop();
  }
});
