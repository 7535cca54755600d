/**
 * controller-registration: N simulated agents register at once with a `svc controller` process, with domain
 * events off and on (`controller.events.enabled`). Each Register has the agents' own 5 s deadline; a timed-out or
 * failed one is counted and retried, as an agent would. Per N and setting: time until every agent is registered,
 * Register latency p50 / p99, timeouts, heartbeat failures over the following 15 s, and agents registered at the
 * end. Agents heartbeat every 5 s; with --watch they also watch peers (and the time until every agent holds the
 * whole fleet is reported; the fleet in this one process then receives N^2 peer entries, which dominates).
 * Reuses controller-scale's process and fleet helpers.
 *
 *   npm run bench -- controller-registration [--agents 5000,10000] [--channels 16] [--watch] [--no-record]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { grpc } from "@svc/protocol";
import { ControllerProcess } from "../controller-scale/controller-process.ts";
import { SimFleet } from "../controller-scale/sim-fleet.ts";
import { quantile, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "5000,10000" },
    channels: { type: "string", default: "16" },
    concurrency: { type: "string", default: "1000" },
    /** also open every agent's peer watch (the fleet then receives N^2 peer entries: minutes at 10,000) */
    watch: { type: "boolean", default: false },
    "no-record": { type: "boolean", default: false },
  },
});
const sizes = values.agents.split(",").map(Number);
const channels = Number(values.channels);
const concurrency = Number(values.concurrency);
const AGENT_DEADLINE_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

interface Result {
  n: number;
  events: boolean;
  registered: number;
  p50: number;
  p99: number;
  timeouts: number;
  otherFailures: number;
  converged: number;
  heartbeatsFailed: number;
  left: number;
  cpuPct: number;
}

async function registeredAgents(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/topology`);
  const body = (await res.json()) as { agents?: unknown[] };
  return body.agents?.length ?? 0;
}

async function runOne(n: number, events: boolean): Promise<Result> {
  const ctl = await ControllerProcess.start({ mode: "full" }, [], { events });
  const fleet = new SimFleet(`127.0.0.1:${ctl.grpcPort}`, channels);
  fleet.reserve(n + 16);
  const latencies: number[] = [];
  let timeouts = 0;
  let otherFailures = 0;
  let done = 0;
  const progress = setInterval(() => {
    let least = n;
    let empty = 0;
    for (const a of fleet.agents.values()) {
      least = Math.min(least, a.count);
      if (a.count === 0) empty++;
    }
    console.log(
      `  ${done}/${n} registered, ${timeouts} timeouts, ${otherFailures} failures, fewest peers held ${least}` +
        ` (${empty} agents hold none), ${fleet.stats.streamErrors} stream errors`,
    );
  }, 5000);
  try {
    const cpu0 = ctl.cpuMs();
    const t0 = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < n) {
        const i = next++;
        for (;;) {
          const t = performance.now();
          try {
            const agent = await fleet.register(`sim-${i}`, i, AGENT_DEADLINE_MS);
            latencies.push(performance.now() - t);
            done++;
            if (values.watch) fleet.watch(agent);
            else fleet.heartbeat(agent);
            break;
          } catch (err) {
            const e = err as grpc.ServiceError;
            if (e.code === grpc.status.DEADLINE_EXCEEDED) timeouts++;
            else {
              otherFailures++;
              if (otherFailures <= 3) console.log(`  Register failed: ${e.code} ${e.details ?? e.message}`);
            }
            // as an agent does: wait before trying again (2 s, less up to 25 %)
            await sleep(1500 + Math.random() * 500);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
    const registered = performance.now() - t0;
    const deadline = Date.now() + 600_000;
    while (values.watch && ![...fleet.agents.values()].every((a) => a.count === n - 1)) {
      if (Date.now() > deadline) throw new Error("the fleet did not converge within 600 s");
      await sleep(20);
    }
    const converged = performance.now() - t0;
    const cpuPct = ((ctl.cpuMs() - cpu0) / converged) * 100;
    const hb0 = fleet.stats.heartbeatsFailed;
    await sleep(15_000);
    return {
      n,
      events,
      registered,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      timeouts,
      otherFailures,
      converged,
      heartbeatsFailed: fleet.stats.heartbeatsFailed - hb0,
      left: await registeredAgents(ctl.httpPort),
      cpuPct,
    };
  } finally {
    clearInterval(progress);
    fleet.close();
    await ctl.stop();
  }
}

const loadBefore = loadavg()[0] ?? 0;
const results: Result[] = [];
for (const n of sizes) {
  for (const events of [false, true]) {
    console.log(`controller-registration: ${n} agents, events ${events ? "on" : "off"}`);
    if (global.gc) global.gc();
    const r = await runOne(n, events);
    console.log(`  registered in ${fmt(r.registered)}, ${r.timeouts} timeouts, ${r.left} agents at the end`);
    results.push(r);
  }
}

const rows: (string | number)[][] = [];
const add = (label: string, cell: (r: Result) => string) => rows.push([label, ...results.map(cell)]);
add("all registered (Register answered)", (r) => fmt(r.registered));
add("Register latency p50 / p99", (r) => `${fmt(r.p50)} / ${fmt(r.p99)}`);
add("Register timeouts (5 s deadline) / other failures", (r) => `${r.timeouts} / ${r.otherFailures}`);
if (values.watch) add("every agent holds the whole fleet", (r) => fmt(r.converged));
add("controller CPU while registering (% of one core)", (r) => `${r.cpuPct.toFixed(0)} %`);
add("heartbeat failures in the next 15 s", (r) => String(r.heartbeatsFailed));
add("agents registered at the end", (r) => String(r.left));
const body = [
  `N simulated agents register at once (${concurrency} Registers in flight, each with the agents' 5 s deadline, a`,
  `timeout retried after ~2 s) over ${channels} gRPC channels to a \`svc controller\` process on loopback, then`,
  `heartbeat every 5 s${values.watch ? " and watch peers (incremental)" : " (no peer watches: registration cost alone)"}.`,
  "Events off / on is `controller.events.enabled`. The 2 cores are shared with the simulated fleet; latency is",
  "measured in the bench process and includes its own event-loop lag.",
  "",
  `Load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${(loadavg()[0] ?? 0).toFixed(1)}.`,
  "",
  table(["", ...results.map((r) => `N = ${r.n}, events ${r.events ? "on" : "off"}`)], rows),
].join("\n");
if (values["no-record"]) console.log(body);
else record("controller-registration", body);
process.exit(0);
