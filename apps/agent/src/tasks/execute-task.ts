import { performance } from "node:perf_hooks";
import type { HttpTarget } from "@svc/core";
import type { TaskMessage } from "@svc/protocol";
import type { Probers } from "../scheduler/probers.ts";

/** Per-type probe timeouts (ms), the checker defaults of spec §8.2; a task's own timeout caps them. */
export const DEFAULT_TASK_PROBE_TIMEOUTS: Record<string, number> = {
  tcp: 1000,
  udp: 250,
  icmp: 1000,
  dns: 2000,
  http: 5000,
  pmtu: 1000,
  mtr: 1000,
};

/** Rounds of a one-shot mtr diagnostic (params.rounds overrides, 1-100). Routers answer about once a second. */
export const TASK_MTR_ROUNDS = 5;

export interface TaskExecutionOptions {
  probers: Probers;
  /** this agent's own ports: the defaults for a task with port 0 (tcp/http -> httpPort, udp -> udpPort) */
  ports: { httpPort: number; udpPort: number };
  /** per-type probe timeouts, ms; default DEFAULT_TASK_PROBE_TIMEOUTS */
  probeTimeoutMs?: Partial<Record<string, number>>;
  /** datagrams per udp task; default 5 */
  udpPackets?: number;
  /** echo requests per icmp task; default 3 */
  icmpCount?: number;
  /** hop limit of an mtr task without `params.maxHops`; default 30 (checkers.mtr.maxHops) */
  mtrMaxHops?: number;
  /** name a dns task without `params.query` resolves; default "kubernetes.default.svc" */
  defaultDnsQuery?: string;
}

/** The outcome of one task, before it is reported. Durations in `details` are integer nanoseconds. */
export interface TaskOutcome {
  success: boolean;
  error: string;
  details?: Record<string, unknown>;
}

const ns = (ms: number | undefined): number | undefined =>
  ms === undefined ? undefined : Math.round(ms * 1e6);
const mean = (xs: readonly number[]): number | undefined =>
  xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;

function params(task: TaskMessage): Record<string, unknown> {
  if (task.params_json === "") return {};
  try {
    const v: unknown = JSON.parse(task.params_json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * Runs one task with this agent's probes. Details per type (durations ns):
 * tcp `{port, rtt (connect), total?}`; udp `{port, rtt (mean), jitter?, lossRatio, sent, received}`;
 * icmp `{rtt (mean), lossRatio, rtts}`; dns `{query, resolver, addresses, rtt}`;
 * http `{url, method, statusCode, rtt (total), connect?, ttfb?}`.
 * pmtu `{reading, pmtuBytes, probeBytes, port}`; mtr `{target, hops: [{number, ip, rtt, lossRatio}]}` (spec §2.5).
 * A type whose prober was not injected fails with "<type> probe not available in this agent". Never throws.
 */
export async function executeTask(task: TaskMessage, o: TaskExecutionOptions): Promise<TaskOutcome> {
  const taskMs = task.timeout_ns > 0 ? task.timeout_ns / 1e6 : Number.POSITIVE_INFINITY;
  const timeoutMs = Math.max(
    1,
    Math.min(taskMs, o.probeTimeoutMs?.[task.type] ?? DEFAULT_TASK_PROBE_TIMEOUTS[task.type] ?? 1000),
  );
  const p = params(task);
  switch (task.type) {
    case "tcp": {
      const port = task.port || o.ports.httpPort;
      const r = await o.probers.tcp.probe({ address: task.address, port, timeoutMs });
      return {
        success: r.ok,
        error: r.error ?? "",
        details: { port, rtt: ns(r.connectMs), total: ns(r.totalMs) },
      };
    }
    case "udp": {
      const port = task.port || o.ports.udpPort;
      const r = await o.probers.udp.probe({
        address: task.address,
        port,
        timeoutMs,
        packets: o.udpPackets ?? 5,
      });
      const details = {
        port,
        rtt: ns(mean(r.rttsMs)),
        jitter: ns(r.jitterMs),
        lossRatio: r.lossRatio,
        sent: r.sent,
        received: r.received,
      };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "icmp": {
      if (o.probers.icmp === undefined)
        return { success: false, error: "icmp probe not available in this agent" };
      const count = typeof p.count === "number" ? p.count : (o.icmpCount ?? 3);
      const r = await o.probers.icmp.probe({ address: task.address, timeoutMs, count });
      const rtts = r.rtts.map((x) => ns(x) ?? 0);
      return {
        success: r.ok,
        error: r.error ?? "",
        details: { rtt: ns(mean(r.rtts)), lossRatio: r.lossRatio, rtts },
      };
    }
    case "dns": {
      const query =
        typeof p.query === "string" && p.query !== ""
          ? p.query
          : (o.defaultDnsQuery ?? "kubernetes.default.svc");
      const resolvers = typeof p.resolver === "string" && p.resolver !== "" ? [p.resolver] : [];
      const [r] = await o.probers.dns.probe({ hosts: [query], resolvers, timeoutMs });
      if (r === undefined) return { success: false, error: "dns probe returned nothing" };
      const details = { query, resolver: r.resolver, addresses: r.addresses, rtt: ns(r.durationMs) };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "http": {
      const url =
        typeof p.url === "string" && p.url !== ""
          ? p.url
          : `http://${hostPort(task.address, task.port || o.ports.httpPort)}/healthz`;
      const target: HttpTarget = {
        url,
        method: typeof p.method === "string" ? p.method : "GET",
        expectStatus: typeof p.expectStatus === "number" ? p.expectStatus : 0,
        bodyPattern: typeof p.bodyPattern === "string" ? p.bodyPattern : "",
        insecureSkipVerify: p.insecureSkipVerify === true,
      };
      const [r] = await o.probers.http.probe({ targets: [target], timeoutMs });
      if (r === undefined) return { success: false, error: "http probe returned nothing" };
      const details = {
        url,
        method: r.method,
        statusCode: r.statusCode,
        rtt: ns(r.totalMs),
        connect: ns(r.connectMs),
        ttfb: ns(r.ttfbMs),
      };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "pmtu": {
      if (o.probers.pmtu === undefined)
        return { success: false, error: "pmtu probe not available in this agent" };
      const port = task.port || o.ports.udpPort;
      const size = typeof p.size === "number" ? p.size : 0;
      const r = await o.probers.pmtu.probe({ address: task.address, port, timeoutMs, size });
      const details = { reading: r.reading, pmtuBytes: r.pmtuBytes, probeBytes: r.probeBytes, port };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "mtr": {
      if (o.probers.mtr === undefined)
        return { success: false, error: "mtr probe not available in this agent" };
      const rounds =
        typeof p.rounds === "number" && p.rounds >= 1 && p.rounds <= 100 ? p.rounds : TASK_MTR_ROUNDS;
      const maxHops =
        typeof p.maxHops === "number" && p.maxHops >= 1 && p.maxHops <= 64 ? p.maxHops : o.mtrMaxHops;
      const r = await o.probers.mtr.probe({
        address: task.address,
        maxHops: maxHops ?? 30,
        rounds,
        timeoutMs,
      });
      return { success: r.ok, error: r.error ?? "", details: { target: r.target, hops: r.hops } };
    }
    default:
      return { success: false, error: `unknown task type "${task.type}"` };
  }
}

/** Runs a task and measures it; `durationNs` covers the probe only. */
export async function timedTask(
  task: TaskMessage,
  o: TaskExecutionOptions,
): Promise<TaskOutcome & { durationNs: number }> {
  const started = performance.now();
  let outcome: TaskOutcome;
  try {
    outcome = await executeTask(task, o);
  } catch (err) {
    outcome = { success: false, error: err instanceof Error ? err.message : String(err) };
  }
  return { ...outcome, durationNs: Math.round((performance.now() - started) * 1e6) };
}
