import { performance } from "node:perf_hooks";
import type { Checkers, HttpTarget } from "@svc/core";
import { checkPort, type TaskMessage } from "@svc/protocol";
import { icmpCount } from "../external/run-check.ts";
import type { Probers } from "../scheduler/probers.ts";

/** The agent's `checkers.*` a task reads (spec §8.2); the runner passes the live configuration. */
export type TaskCheckers = Pick<Checkers, "tcp" | "udp" | "icmp" | "pmtu" | "dns" | "http" | "mtr"> &
  Partial<Pick<Checkers, "external">>;

/** Rounds of a one-shot mtr diagnostic (params.rounds overrides, 1-100). Routers answer about once a second. */
export const TASK_MTR_ROUNDS = 5;
/** How long each mtr probe waits for its answer, ms: the reactive trace's (checkers.mtr has no timeout key). */
export const TASK_MTR_PROBE_TIMEOUT_MS = 1000;

export interface TaskExecutionOptions {
  probers: Probers;
  /**
   * this agent's own ports: the fallbacks for a task to a node destination with port 0 (the destination agent
   * reported none; tcp/http -> httpPort, udp/pmtu -> udpPort), as the continuous checks fall back
   */
  ports: { httpPort: number; udpPort: number };
  /** the agent's checkers.* at the time the task runs (AgentTaskRunner reads the live, hot-reloaded config) */
  checkers: TaskCheckers;
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

/** An integer request parameter within [min, max], else undefined (absent or out of range: the default applies). */
function intParam(v: unknown, min: number, max: number): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
}

/**
 * The per-probe timeout of a task, ms: the type's configured checker timeout (checkers.<type>.timeout; mtr:
 * TASK_MTR_PROBE_TIMEOUT_MS), shortened by the task's own timeout (90 % of the request's `timeout` query) when
 * that is less and, for an external destination, by `checkers.external.timeout` when above 0 (the cap of the
 * continuous external checks). A request can only shorten it. At least 1 ms.
 */
export function taskTimeoutMs(task: TaskMessage, checkers: TaskCheckers): number {
  const configured: Record<string, number> = {
    tcp: checkers.tcp.timeout,
    udp: checkers.udp.timeout,
    icmp: checkers.icmp.timeout,
    dns: checkers.dns.timeout,
    http: checkers.http.timeout,
    pmtu: checkers.pmtu.timeout,
    mtr: TASK_MTR_PROBE_TIMEOUT_MS,
  };
  let ms = configured[task.type] ?? checkers.tcp.timeout;
  if (task.timeout_ns > 0) ms = Math.min(ms, task.timeout_ns / 1e6);
  const cap = checkers.external?.timeout ?? 0;
  if (task.destination_kind === "external" && cap > 0) ms = Math.min(ms, cap);
  return Math.max(1, ms);
}

/**
 * The port a task dials. External destination: `checkPort` (the check's default port, 443 for tcp, exactly as a
 * continuous external check with port 0). Node destination: the port the controller sent (the destination agent's
 * reported httpPort / udpPort), else this agent's own, like the continuous peer checks.
 */
function taskPort(task: TaskMessage, own: number): number {
  if (task.destination_kind === "external")
    return checkPort(task.type, { kind: "external", port: task.port });
  return task.port || own;
}

/**
 * Runs one task with this agent's probes and its `checkers.*` (spec §8.2), read when the task starts:
 * - every type: the per-probe timeout is taskTimeoutMs (configured checker timeout; a request only shortens it);
 * - udp: `checkers.udp.packets` datagrams (`params.packets` 1..that number may send fewer);
 * - icmp: 3 echo requests (`params.count` 1-100, the continuous external icmp checks' rule, icmpCount);
 * - dns: every configured host (`params.query` names one instead) through every configured resolver (none
 *   configured: the system resolver); `params.resolver` picks one of the configured resolvers, any other is
 *   refused (a diagnostic never asks a server the agent is not configured to ask);
 * - pmtu: `checkers.pmtu.size` (`params.size` 576-65535 may probe a smaller size; with size 0 configured, any);
 * - mtr: `checkers.mtr.maxHops` hops (`params.maxHops` may lower it), TASK_MTR_ROUNDS rounds (`params.rounds`
 *   1-100), stopped at the task's own timeout with what it saw; the reactive cooldown does not apply;
 * - http: `checkers.http.timeout`; `params.url` etc. as before.
 * Details per type (durations ns; `timeout` = the per-probe timeout used):
 * tcp `{port, rtt (connect), total?, timeout}`; udp `{port, rtt (mean), jitter?, lossRatio, sent, received,
 * timeout}`; icmp `{rtt (mean), lossRatio, rtts, count, timeout}`; dns `{query, resolver, addresses, rtt, timeout,
 * lookups: [{host, resolver, ok, error?, addresses, rtt}]}` (query/resolver/addresses/rtt of the first failed
 * lookup, else the first); http `{url, method, statusCode, rtt (total), connect?, ttfb?, timeout}`;
 * pmtu `{reading, pmtuBytes, probeBytes, port, size, timeout}`; mtr `{target, hops: [{number, ip, rtt,
 * lossRatio}], maxHops, rounds, timeout}` (spec §2.5).
 * A type whose prober was not injected fails with "<type> probe not available in this agent". Never throws.
 */
export async function executeTask(task: TaskMessage, o: TaskExecutionOptions): Promise<TaskOutcome> {
  const c = o.checkers;
  const timeoutMs = taskTimeoutMs(task, c);
  const timeout = ns(timeoutMs);
  const p = params(task);
  switch (task.type) {
    case "tcp": {
      const port = taskPort(task, o.ports.httpPort);
      const r = await o.probers.tcp.probe({ address: task.address, port, timeoutMs });
      return {
        success: r.ok,
        error: r.error ?? "",
        details: { port, rtt: ns(r.connectMs), total: ns(r.totalMs), timeout },
      };
    }
    case "udp": {
      const port = taskPort(task, o.ports.udpPort);
      const packets = intParam(p.packets, 1, c.udp.packets) ?? c.udp.packets;
      const r = await o.probers.udp.probe({ address: task.address, port, timeoutMs, packets });
      const details = {
        port,
        rtt: ns(mean(r.rttsMs)),
        jitter: ns(r.jitterMs),
        lossRatio: r.lossRatio,
        sent: r.sent,
        received: r.received,
        timeout,
      };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "icmp": {
      if (o.probers.icmp === undefined)
        return { success: false, error: "icmp probe not available in this agent" };
      const count = icmpCount(p);
      const r = await o.probers.icmp.probe({ address: task.address, timeoutMs, count });
      const rtts = r.rtts.map((x) => ns(x) ?? 0);
      return {
        success: r.ok,
        error: r.error ?? "",
        details: { rtt: ns(mean(r.rtts)), lossRatio: r.lossRatio, rtts, count, timeout },
      };
    }
    case "dns": {
      const hosts = typeof p.query === "string" && p.query !== "" ? [p.query] : c.dns.hosts;
      let resolvers = c.dns.resolvers;
      if (typeof p.resolver === "string" && p.resolver !== "") {
        if (!resolvers.includes(p.resolver)) {
          const allowed = resolvers.length === 0 ? "none (the system resolver)" : resolvers.join(", ");
          return {
            success: false,
            error: `resolver ${p.resolver} is not in checkers.dns.resolvers (configured: ${allowed})`,
          };
        }
        resolvers = [p.resolver];
      }
      if (hosts.length === 0)
        return { success: false, error: "no name to resolve (checkers.dns.hosts is empty)" };
      const results = await o.probers.dns.probe({ hosts, resolvers, timeoutMs });
      const r = results.find((x) => !x.ok) ?? results[0];
      if (r === undefined) return { success: false, error: "dns probe returned nothing" };
      const lookups = results.map((x) => ({
        host: x.host,
        resolver: x.resolver,
        ok: x.ok,
        ...(x.error === undefined ? {} : { error: x.error }),
        addresses: x.addresses,
        rtt: ns(x.durationMs),
      }));
      const details = {
        query: r.host,
        resolver: r.resolver,
        addresses: r.addresses,
        rtt: ns(r.durationMs),
        timeout,
        lookups,
      };
      const error = r.ok
        ? ""
        : results.length > 1
          ? `${r.host} via ${r.resolver}: ${r.error ?? ""}`
          : (r.error ?? "");
      return { success: results.every((x) => x.ok), error, details };
    }
    case "http": {
      const url =
        typeof p.url === "string" && p.url !== ""
          ? p.url
          : `http://${hostPort(task.address, taskPort(task, o.ports.httpPort))}/healthz`;
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
        timeout,
      };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "pmtu": {
      if (o.probers.pmtu === undefined)
        return { success: false, error: "pmtu probe not available in this agent" };
      const port = taskPort(task, o.ports.udpPort);
      const configured = c.pmtu.size;
      const size = intParam(p.size, 576, configured > 0 ? configured : 65535) ?? configured;
      const r = await o.probers.pmtu.probe({ address: task.address, port, timeoutMs, size });
      const details = {
        reading: r.reading,
        pmtuBytes: r.pmtuBytes,
        probeBytes: r.probeBytes,
        port,
        size,
        timeout,
      };
      return { success: r.ok, error: r.error ?? "", details };
    }
    case "mtr": {
      if (o.probers.mtr === undefined)
        return { success: false, error: "mtr probe not available in this agent" };
      const rounds = intParam(p.rounds, 1, 100) ?? TASK_MTR_ROUNDS;
      const maxHops = intParam(p.maxHops, 1, c.mtr.maxHops) ?? c.mtr.maxHops;
      // the whole trace ends at the task's own deadline, reporting what it saw by then
      const abort = new AbortController();
      const timer =
        task.timeout_ns > 0 ? setTimeout(() => abort.abort(), task.timeout_ns / 1e6).unref() : undefined;
      try {
        const r = await o.probers.mtr.probe({
          address: task.address,
          maxHops,
          rounds,
          timeoutMs,
          signal: abort.signal,
        });
        const details = { target: r.target, hops: r.hops, maxHops, rounds, timeout };
        return { success: r.ok, error: r.error ?? "", details };
      } finally {
        clearTimeout(timer);
      }
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
