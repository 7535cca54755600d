import net from "node:net";
import type { ExternalChecker } from "@svc/core";
import { parseExposition } from "../../../../../test/helpers/metrics-text.ts";
import { MetricRegistry } from "../../metrics/store/registry.ts";
import { probeDns } from "../../probes/dns.ts";
import { probeHttp } from "../../probes/http.ts";
import { probeTcp } from "../../probes/tcp.ts";
import { ExternalCheckRunner } from "../external-check-runner.ts";
import { startAssignmentServer } from "./assignment-server.ts";

/** Test fixture: cleanups the test file runs in after(). */
export const cleanups: (() => Promise<void> | void)[] = [];

/** Test fixture: a checkers.external config allowing 127.0.0.0/8, with overrides. */
export const cfg = (over: Partial<ExternalChecker> = {}): ExternalChecker => ({
  enabled: true,
  allowedCidrs: ["127.0.0.0/8"],
  deniedCidrs: [],
  maxTargets: 100,
  timeout: 10_000,
  ...over,
});

/** Test fixture: a tcp listener on 127.0.0.1 that counts accepted connections. */
export async function tcpServer(): Promise<{ port: number; accepted: () => number }> {
  let n = 0;
  const srv = net.createServer((s) => {
    n++;
    s.on("error", () => {});
    s.end();
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => srv.close(() => r())));
  return { port: (srv.address() as net.AddressInfo).port, accepted: () => n };
}

/** Test fixture: an assignment server and a started runner against it, with metric readers. */
export async function setup(config: ExternalChecker, lookup?: (h: string) => Promise<string[]>) {
  const server = await startAssignmentServer();
  const registry = new MetricRegistry();
  const logs: string[] = [];
  const runner = new ExternalCheckRunner({
    controllerAddress: `127.0.0.1:${server.port}`,
    agentId: () => "agent-x",
    metricsRegistry: registry,
    metricsPrefix: "svc",
    sourceNode: "edge-1",
    sourceZone: () => "external",
    probers: { tcp: { probe: probeTcp }, dns: { probe: probeDns }, http: { probe: probeHttp } },
    config,
    logger: { debug() {}, info() {}, warn: (_o, m) => logs.push(m ?? ""), error() {} },
    backoff: { initialMs: 50, maxMs: 200, jitter: 0 },
    ...(lookup ? { lookup } : {}),
  });
  runner.start();
  cleanups.push(
    () => runner.stop(),
    () => server.close(),
  );
  const samples = async () => parseExposition(await registry.metrics());
  const value = async (name: string, labels: Record<string, string>) =>
    (await samples())
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((a, s) => a + s.value, 0);
  const until = async (what: string, cond: () => Promise<boolean>, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}\n${await registry.metrics()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { server, runner, registry, logs, samples, value, until };
}
