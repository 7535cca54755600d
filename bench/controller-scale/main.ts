/**
 * controller-scale: a `svc controller` process holding N simulated agents (real gRPC on loopback, from this
 * process). Per N: time until every agent is registered and until every agent holds the whole fleet; controller
 * CPU and RSS; join/leave propagation to every agent (p50/p99) and the messages each costs; `GET
 * /api/v1/topology` latency (full mesh and sparse); live switch to sparse (until every agent has its plan); sparse
 * plan computation time (the planner the controller runs, timed here on the same fleet).
 *
 *   npm run bench -- controller-scale [--agents 1000,5000] [--channels 16] [--events 10] [--mode full|sparse]
 *                                     [--watchers K] [--no-record]
 *   npm run bench -- controller-scale --registration [--agents 5000,10000] [--channels 16] [--watch] [--no-record]
 *
 * `--registration` runs the registration case instead: N agents register at once with
 * `controller.events.enabled` off and on (timeouts against the agents' 5 s deadline, heartbeat failures after).
 * It is bench/controller-registration's measurement, run as is (the other flags are its own) and recorded under
 * its name.
 *
 * Memory: the controller runs in a memory cgroup of its own (as root); its working set (usage minus inactive file
 * pages, what Kubernetes limits and evicts on) is the headline, RSS beside it. `--mode sparse` starts the
 * controller on the sparse plan (convergence is then "every agent has its plan"; the live switch is skipped).
 * `--watchers K`: only the first K agents hold a WatchPeers stream, the others register and heartbeat: every
 * watcher receives the whole fleet (in sparse mode too), and 10,000 watchers are 10,000 lists of 10,000 peers
 * (~10 GB) that this one process cannot take in.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { type PlanOptions, planProbes } from "@svc/controller";
import { quantile, record, table } from "../lib/report.ts";
import { ControllerProcess } from "./controller-process.ts";
import { type SimAgent, SimFleet } from "./sim-fleet.ts";

if (process.argv.includes("--registration")) {
  process.argv.splice(process.argv.indexOf("--registration"), 1);
  await import("../controller-registration/main.ts"); // records its table and exits the process
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "1000,5000" },
    channels: { type: "string", default: "16" },
    events: { type: "string", default: "10" },
    concurrency: { type: "string", default: "500" },
    /** --max-old-space-size for the controller's node, MiB (default: node's own) */
    "controller-heap": { type: "string" },
    mode: { type: "string", default: "full" },
    watchers: { type: "string" },
    /** more flags for the controller's node, space-separated (e.g. V8's defaults, which turn its policy off) */
    "controller-node-args": { type: "string" },
    "no-record": { type: "boolean", default: false },
  },
});
const sizes = values.agents.split(",").map(Number);
const channels = Number(values.channels);
const events = Number(values.events);
const concurrency = Number(values.concurrency);
const SPARSE = { ringDegree: 2, zoneChords: 2 };
const startSparse = values.mode === "sparse";
const watchers = values.watchers === undefined ? undefined : Number(values.watchers);
const MiB = 2 ** 20;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

async function until(cond: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
}

async function pool(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

async function topologyLatency(
  port: number,
  runs: number,
): Promise<{ p50: number; p99: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs + 5; i++) {
    const t = now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/topology`);
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`topology: ${res.status}`);
    if (i >= 5) times.push(now() - t); // the first few warm the route
    bytes = body.byteLength;
  }
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), bytes };
}

interface Propagation {
  latencies: number[];
  messagesPerEvent: number[];
  entriesPerEvent: number[];
}

/** The simulated agents that hold a WatchPeers stream. */
function watching(fleet: SimFleet): SimAgent[] {
  return [...fleet.agents.values()].filter((a) => a.stream !== undefined);
}

/** One join (or leave) of a short-lived agent: ms until every watching simulated agent saw it. */
async function propagate(
  fleet: SimFleet,
  id: string,
  index: number,
  kind: "join" | "leave",
  out: Propagation,
) {
  const waiting = new Set(watching(fleet).map((a) => a.id));
  waiting.delete(id);
  const target = waiting.size;
  let seen = 0;
  const m0 = fleet.stats.messages;
  const entries = () => fleet.stats.peerEntries + fleet.stats.removedEntries;
  const e0 = entries();
  const start = now();
  const stop = fleet.observe((agent, msg, at) => {
    if (!waiting.has(agent.id)) return;
    const hit =
      kind === "join" ? msg.peers.includes(id) : msg.removed.includes(id) || !fleet.holds(agent, id);
    if (!hit) return;
    waiting.delete(agent.id);
    seen++;
    out.latencies.push(at - start);
  });
  if (kind === "join") await fleet.register(id, index);
  else await fleet.deregister(id);
  await until(() => seen === target, `${kind} of ${id} seen by all ${target}`, 30_000);
  stop();
  await sleep(300); // let stragglers (there should be none) arrive before counting
  out.messagesPerEvent.push(fleet.stats.messages - m0);
  out.entriesPerEvent.push(entries() - e0);
}

function planTimes(n: number): { fresh: number; join: number; edges: number } {
  const opts: PlanOptions = { mode: "sparse", autoThreshold: 0, ...SPARSE };
  const nodes = Array.from({ length: n }, (_, i) => ({ name: `sim-${i}`, zone: `zone-${i % 10}` }));
  const fresh: number[] = [];
  const join: number[] = [];
  let plan = planProbes(nodes, opts);
  for (let r = 0; r < 5; r++) {
    let t = now();
    plan = planProbes(nodes, opts);
    fresh.push(now() - t);
    const joined = [...nodes, { name: `join-${r}`, zone: `zone-${r % 10}` }];
    t = now();
    planProbes(joined, opts, plan);
    join.push(now() - t);
  }
  let edges = 0;
  for (const targets of plan?.values() ?? []) edges += targets.length;
  return { fresh: quantile(fresh, 0.5), join: quantile(join, 0.5), edges };
}

interface Result {
  n: number;
  registered: number;
  converged: number;
  cpuRegisterPct: number;
  cpuSteadyPct: number;
  rssSteady: number;
  rssPeak: number;
  /** highest sampled RSS (every 250 ms) per phase, in the order of the table row */
  rssPhases: number[];
  wsSteady: number;
  wsMax: number;
  /** highest sampled working set per phase, as rssPhases */
  wsPhases: number[];
  join: Propagation;
  leave: Propagation;
  topoFull: { p50: number; p99: number; bytes: number };
  topoSparse: { p50: number; p99: number; bytes: number };
  sparseSwitch: number;
  sparseJoin: Propagation;
  plan: { fresh: number; join: number; edges: number };
  fleetMessages: number;
  fleetMiB: number;
  errors: string;
}

async function runOne(n: number): Promise<Result> {
  const heap = values["controller-heap"];
  const ctl = await ControllerProcess.start(
    startSparse ? { mode: "sparse", sparse: SPARSE } : { mode: "full" },
    [
      ...(heap ? [`--max-old-space-size=${heap}`] : []),
      ...(values["controller-node-args"]?.split(" ") ?? []),
    ],
  );
  const fleet = new SimFleet(`127.0.0.1:${ctl.grpcPort}`, channels);
  fleet.reserve(n + 2 * events + 16);
  let phaseMax = 0;
  let wsPhaseMax = 0;
  let wsMax = 0;
  const wsPhases: number[] = [];
  const sampler = setInterval(() => {
    phaseMax = Math.max(phaseMax, ctl.rss().now);
    const ws = ctl.workingSet();
    wsPhaseMax = Math.max(wsPhaseMax, ws);
    wsMax = Math.max(wsMax, ws);
  }, 250);
  const phase = (): number => {
    const max = Math.max(phaseMax, ctl.rss().now);
    phaseMax = 0;
    wsPhases.push(Math.max(wsPhaseMax, ctl.workingSet()));
    wsPhaseMax = 0;
    return max;
  };
  try {
    const cpu0 = ctl.cpuMs();
    const t0 = now();
    await pool(n, concurrency, async (i) => {
      const agent = await fleet.register(`sim-${i}`, i);
      if (i < (watchers ?? n)) fleet.watch(agent);
      else fleet.heartbeat(agent);
    });
    const registered = now() - t0;
    console.log(`  ${n}: all registered in ${fmt(registered)}`);
    await until(
      startSparse
        ? () => watching(fleet).every((a) => a.sparse && a.planned > 0)
        : () => watching(fleet).every((a) => a.count === n - 1),
      startSparse ? "every agent has its sparse plan" : "every agent holds the whole fleet",
      600_000,
    );
    const converged = now() - t0;
    const cpuRegisterPct = ((ctl.cpuMs() - cpu0) / converged) * 100;
    console.log(`  ${n}: every agent holds the fleet after ${fmt(converged)}`);
    const rssRegister = phase();

    // Steady state: heartbeats only.
    await sleep(2000);
    const c1 = ctl.cpuMs();
    const s1 = now();
    await sleep(10_000);
    const cpuSteadyPct = ((ctl.cpuMs() - c1) / (now() - s1)) * 100;
    const rssSteady = ctl.rss().now;
    const wsSteady = ctl.workingSet();
    const rssIdle = phase();

    const join: Propagation = { latencies: [], messagesPerEvent: [], entriesPerEvent: [] };
    const leave: Propagation = { latencies: [], messagesPerEvent: [], entriesPerEvent: [] };
    for (let e = 0; e < events; e++) {
      await propagate(fleet, `join-${e}`, n + e, "join", join);
      await propagate(fleet, `join-${e}`, n + e, "leave", leave);
    }
    console.log(
      `  ${n}: join/leave p99 ${fmt(quantile(join.latencies, 0.99))}/${fmt(quantile(leave.latencies, 0.99))}`,
    );
    const rssEvents = phase();
    const topoFull = await topologyLatency(ctl.httpPort, 100);
    const rssTopoFull = phase();

    // Live switch to sparse: every agent gets `sparse` and its plan.
    const ts = now();
    if (!startSparse) {
      ctl.reload({ mode: "sparse", sparse: SPARSE });
      await until(
        () => watching(fleet).every((a) => a.sparse && a.planned > 0),
        "every agent has its sparse plan",
        120_000,
      );
    }
    const sparseSwitch = startSparse ? Number.NaN : now() - ts;
    const sparseJoin: Propagation = { latencies: [], messagesPerEvent: [], entriesPerEvent: [] };
    for (let e = 0; e < Math.min(events, 5); e++) {
      await propagate(fleet, `sjoin-${e}`, n + events + e, "join", sparseJoin);
      await propagate(fleet, `sjoin-${e}`, n + events + e, "leave", sparseJoin);
    }
    const rssSparse = phase();
    const topoSparse = await topologyLatency(ctl.httpPort, 100);
    const rssPeak = ctl.rss().peak;
    const rssPhases = [rssRegister, rssIdle, rssEvents, rssTopoFull, rssSparse, phase()];
    const s = fleet.stats;
    return {
      n,
      registered,
      converged,
      cpuRegisterPct,
      cpuSteadyPct,
      rssSteady,
      rssPeak,
      rssPhases,
      wsSteady,
      wsMax,
      wsPhases,
      join,
      leave,
      topoFull,
      topoSparse,
      sparseSwitch,
      sparseJoin,
      plan: planTimes(n),
      fleetMessages: s.messages,
      fleetMiB: s.bytes / MiB,
      errors: `${s.streamErrors} stream, ${s.heartbeatsFailed} hb failed, ${s.heartbeatsUnknown} hb unknown`,
    };
  } finally {
    clearInterval(sampler);
    fleet.close();
    await ctl.stop();
  }
}

const loadBefore = loadavg()[0] ?? 0;
const results: Result[] = [];
for (const n of sizes) {
  console.log(`controller-scale: ${n} agents over ${channels} channels`);
  results.push(await runOne(n));
}

const p = (xs: number[], q: number) => fmt(quantile(xs, q));
const mib = (bytes: number) => (bytes / MiB).toFixed(0);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const rows: (string | number)[][] = [];
const add = (label: string, target: string, cell: (r: Result) => string) =>
  rows.push([label, ...results.map(cell), target]);
add("all registered (Register answered)", "< 30 s", (r) => fmt(r.registered));
add(startSparse ? "every agent has its sparse plan" : "every agent holds the whole fleet", "", (r) =>
  fmt(r.converged),
);
add("controller CPU while registering (% of one core)", "", (r) => `${r.cpuRegisterPct.toFixed(0)} %`);
add("controller CPU steady, heartbeats only", "", (r) => `${r.cpuSteadyPct.toFixed(1)} %`);
add(
  "controller working set steady / max (cgroup: usage minus inactive file)",
  "<= 256 MiB at 5000, <= 512 MiB at 10000",
  (r) => `${mib(r.wsSteady)} / ${mib(r.wsMax)} MiB`,
);
add(
  "controller working set max: registering / steady / join+leave / topology / sparse switch+events / topology sparse",
  "",
  (r) => `${r.wsPhases.map(mib).join(" / ")} MiB`,
);
add(
  "controller RSS steady / peak (VmHWM)",
  "< 512 MiB",
  (r) => `${mib(r.rssSteady)} / ${mib(r.rssPeak)} MiB`,
);
add(
  "controller RSS max: registering / steady / join+leave / topology / sparse switch+events / topology sparse",
  "",
  (r) => `${r.rssPhases.map(mib).join(" / ")} MiB`,
);
add(
  "join propagation p50 / p99 (to every agent)",
  "p99 < 2 s",
  (r) => `${p(r.join.latencies, 0.5)} / ${p(r.join.latencies, 0.99)}`,
);
add(
  "leave propagation p50 / p99",
  "p99 < 2 s",
  (r) => `${p(r.leave.latencies, 0.5)} / ${p(r.leave.latencies, 0.99)}`,
);
add("messages / entries (peers + removed ids) per join or leave", "", (r) => {
  const msgs = [...r.join.messagesPerEvent, ...r.leave.messagesPerEvent];
  const entries = [...r.join.entriesPerEvent, ...r.leave.entriesPerEvent];
  return `${mean(msgs).toFixed(0)} / ${mean(entries).toFixed(0)}`;
});
add(
  "sparse join+leave propagation p50 / p99",
  "p99 < 2 s",
  (r) => `${p(r.sparseJoin.latencies, 0.5)} / ${p(r.sparseJoin.latencies, 0.99)}`,
);
add(
  "GET /api/v1/topology p50 / p99, full mesh",
  "p99 < 100 ms",
  (r) => `${fmt(r.topoFull.p50)} / ${fmt(r.topoFull.p99)} (${(r.topoFull.bytes / 1024).toFixed(0)} KiB)`,
);
add(
  "GET /api/v1/topology p50 / p99, sparse",
  "p99 < 100 ms",
  (r) =>
    `${fmt(r.topoSparse.p50)} / ${fmt(r.topoSparse.p99)} (${(r.topoSparse.bytes / 1024).toFixed(0)} KiB)`,
);
add("live switch to sparse: every agent has its plan", "", (r) =>
  Number.isNaN(r.sparseSwitch) ? "(started sparse)" : fmt(r.sparseSwitch),
);
add(
  "sparse plan: fresh / one join (median)",
  "< 100 ms",
  (r) => `${fmt(r.plan.fresh)} / ${fmt(r.plan.join)} (${r.plan.edges} edges)`,
);
add(
  "messages / MiB received by the fleet in total",
  "",
  (r) => `${r.fleetMessages} / ${r.fleetMiB.toFixed(0)}`,
);
add("errors", "0", (r) => r.errors);

const argsNote = values["controller-node-args"]
  ? ` Controller node flags: ${values["controller-node-args"]} (flags the controller's policy names are the operator's: the policy leaves them).`
  : "";
const heapNote = values["controller-heap"]
  ? ` The controller's node ran with --max-old-space-size=${values["controller-heap"]} (which replaces its own garbage-collection policy).`
  : " The controller's node ran with its default heap limit and its own garbage-collection policy (apps/controller/src/heap-policy.ts).";
const body = [
  `N simulated agents (Register, Heartbeat every 5 s, incremental WatchPeers) in the bench process over ${channels}`,
  `gRPC channels to a \`svc controller\` process on loopback; ${events} join + ${events} leave events per N, each`,
  `timed until every agent saw it (debounce 150 ms included); sparse: ringDegree ${SPARSE.ringDegree}, zoneChords`,
  `${SPARSE.zoneChords}, 10 zones${startSparse ? " (the controller started on the sparse plan)" : ""}${watchers === undefined ? "" : `; only ${watchers} agents hold a WatchPeers stream (the others register and heartbeat), and the propagation rows count those`}. CPU is the controller's own (/proc), % of one core; the machine's 2 cores are`,
  `shared with the simulated fleet.${heapNote}${argsNote} Memory: the controller in a memory cgroup of its own; working set`,
  "= usage minus inactive file pages (what Kubernetes limits on), sampled every 250 ms; RSS beside it.",
  "",
  `Load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${(loadavg()[0] ?? 0).toFixed(1)} (other work on the`,
  "machine inflates every time here).",
  "",
  table(["", ...results.map((r) => `N = ${r.n}`), "target at 5000"], rows),
].join("\n");
if (values["no-record"]) console.log(body);
else record("controller-scale", body);
process.exit(0);
