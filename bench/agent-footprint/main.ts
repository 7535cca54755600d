/**
 * agent-footprint: one real `svc agent` process probing N simulated peers on loopback (tcp + udp + icmp at the
 * default 5 s intervals) for at least 60 s; reports CPU ms per second (over the whole measurement, and the
 * median of its 10 s windows), peak RSS and probe start lateness.
 *
 *   npm run bench -- agent-footprint [--peers 100,1000] [--seconds 60] [--warmup 60]
 *
 * The warm-up is 60 s because the agent's first half minute is start-up: loading, the first probe rounds, and
 * 30 s in, the second release of the node executable's pages (docs/decisions.md, "Memory (agent)"); an agent
 * runs for days, so the CPU figure wanted is the one after that. Peak RSS is the process's whole life (VmHWM),
 * start-up included; the RSS at the end is split into anonymous and file pages. Each 10 s window's CPU rate is
 * printed as it ends.
 *
 * The peers are registrations made by this process with addresses 127.1.x.y (all of 127/8 is loopback here): one
 * TCP listener and one UDP echo socket on 0.0.0.0 answer for all of them, the kernel answers icmp. The controller
 * runs in this process too; only the agent's own process is measured (/proc/<pid>).
 */
import { execFileSync, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import { stringify } from "yaml";
import { cpuMs, cpuSplit, rss } from "../lib/proc.ts";
import { median, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    peers: { type: "string", default: "100,1000" },
    seconds: { type: "string", default: "60" },
    warmup: { type: "string", default: "60" },
    // the probe checkers to run (the others are disabled); for attributing cost to one checker
    planes: { type: "string", default: "tcp,udp,icmp" },
    // how often /metrics is scraped during warm-up and measurement, as Prometheus would (0: only at the edges)
    scrape: { type: "string", default: "15" },
  },
});
const peerCounts = values.peers.split(",").map(Number);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const planes = new Set(values.planes.split(","));
const scrapeSeconds = Number(values.scrape);
const SVC_BIN = new URL("../../packages/cli/bin/svc.mjs", import.meta.url).pathname;
// Measure what nodes run: the bundled agent, built from the current sources.
execFileSync(process.execPath, [new URL("../../scripts/build.mjs", import.meta.url).pathname], {
  stdio: "inherit",
});

/** Length of the windows whose CPU rates give the median column, s. */
const WINDOW_S = 10;

function peerAddress(i: number): string {
  return `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

async function listenTcp(): Promise<{ port: number; close: () => void }> {
  const srv = createServer((sock) => {
    sock.on("error", () => {});
    sock.on("end", () => sock.end());
  });
  await new Promise<void>((r) => srv.listen(0, "0.0.0.0", r));
  const addr = srv.address();
  return { port: typeof addr === "object" && addr ? addr.port : 0, close: () => srv.close() };
}

async function listenEcho(): Promise<{ port: number; close: () => void }> {
  const sock = createSocket("udp4");
  sock.on("message", (msg, rinfo) => sock.send(msg, rinfo.port, rinfo.address));
  await new Promise<void>((r) => sock.bind(0, "0.0.0.0", r));
  return { port: sock.address().port, close: () => sock.close() };
}

async function scrapeLateness(url: string): Promise<{ p50: number; p99: number; successes: number }> {
  const text = await (await fetch(url)).text();
  const q = (p: string) =>
    Number(new RegExp(`^svc_probe_start_lateness_${p}_seconds (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) *
    1000;
  let successes = 0;
  for (const m of text.matchAll(/svc_(?:tcp|udp|icmp)_results_total\{[^}]*result="success"[^}]*\} (\S+)/g)) {
    successes += Number(m[1]);
  }
  return { p50: q("p50"), p99: q("p99"), successes };
}

/** One scrape as Prometheus makes it: the whole exposition read and dropped. */
async function scrapeAll(url: string): Promise<void> {
  try {
    await (await fetch(url)).arrayBuffer();
  } catch (err) {
    process.stderr.write(`agent-footprint: scrape failed: ${(err as Error).message}\n`);
  }
}

async function runOne(n: number): Promise<(string | number)[]> {
  const controller = new Controller({
    config: testConfig({ agentTtl: 3_600_000 }),
    version: { version: "bench", commit: "bench" },
    allowLoopbackAgents: true,
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  // testConfig ports are 0: every listener gets a free port
  await controller.start();
  const tcp = await listenTcp();
  const echo = await listenEcho();
  const raw = new RawAgentClient(controller.grpcPort);
  for (let i = 0; i < n; i++) {
    await raw.register(
      registerRequest({
        node_name: `peer-${i}`,
        agent_id: `peer-${i}`,
        advertise_address: peerAddress(i),
        capabilities: ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr"],
        http_port: tcp.port,
        udp_port: echo.port,
        metrics_port: 9,
        version: "2.5.0",
      }),
    );
  }
  const dir = tmpdir();
  const [httpPort, metricsPort, grpcPort] = [30000 + n, 31000 + n, 32000 + n].map((p) => p % 65535);
  const cfgFile = join(dir, `svc-bench-agent-${n}.yaml`);
  writeFileSync(
    cfgFile,
    stringify({
      httpPort,
      metricsPort,
      grpcPort,
      logLevel: "warn",
      controllerAddress: `127.0.0.1:${controller.grpcPort}`,
      checkers: {
        dns: { enabled: false },
        http: { enabled: false },
        pmtu: { enabled: false },
        tcp: { enabled: planes.has("tcp") },
        udp: { enabled: planes.has("udp") },
        icmp: { enabled: planes.has("icmp") },
      },
    }),
  );
  // SVC_BENCH_NODE: a wrapper to run the agent's node with (e.g. a script adding --cpu-prof) when profiling
  const agent = spawn(
    process.env.SVC_BENCH_NODE ?? process.execPath,
    [SVC_BIN, "agent", "--config", cfgFile, "--lab-advertise", "127.0.0.1"],
    {
      env: {
        ...process.env,
        SVC_NODE_NAME: "bench-agent",
        SVC_POD_NAME: "bench-agent",
        SVC_EXIT_WITH_STDIN: "1",
      },
      stdio: ["pipe", "inherit", "inherit"],
    },
  );
  const pid = agent.pid!;
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const readyUrl = `http://127.0.0.1:${httpPort}/readyz`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(readyUrl)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 150) throw new Error("agent did not become ready in 30 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  process.stderr.write(`agent-footprint: N=${n} ready; warm-up ${warmup}s, measuring ${seconds}s\n`);
  const scrapes =
    scrapeSeconds > 0 ? setInterval(() => void scrapeAll(metricsUrl), scrapeSeconds * 1000) : undefined;
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const cpu0 = cpuMs(pid);
  const split0 = cpuSplit(pid);
  const t0 = performance.now();
  const before = await scrapeLateness(metricsUrl);
  // CPU per 10 s window too: the median of the windows is robust to one window's interference (another
  // process's burst, softirq work of the peers' sockets charged to whoever was running)
  const windowRates: number[] = [];
  for (let done = 0; done < seconds; done += WINDOW_S) {
    const w0 = cpuMs(pid);
    const wt = performance.now();
    await new Promise((r) => setTimeout(r, Math.min(WINDOW_S, seconds - done) * 1000));
    windowRates.push((cpuMs(pid) - w0) / ((performance.now() - wt) / 1000));
    process.stderr.write(
      `agent-footprint: N=${n} window ${windowRates.length}: ${windowRates.at(-1)?.toFixed(1)} ms/s\n`,
    );
  }
  const cpu1 = cpuMs(pid);
  const split1 = cpuSplit(pid);
  const elapsed = (performance.now() - t0) / 1000;
  const mem = rss(pid);
  const after = await scrapeLateness(metricsUrl);
  clearInterval(scrapes);
  agent.kill("SIGTERM");
  await new Promise((r) => agent.once("exit", r));
  await controller.stop();
  tcp.close();
  echo.close();
  const cpuPerSec = (cpu1 - cpu0) / elapsed;
  const probesPerSec = (after.successes - before.successes) / elapsed;
  return [
    n,
    elapsed.toFixed(0),
    probesPerSec.toFixed(0),
    cpuPerSec.toFixed(1),
    median(windowRates).toFixed(1),
    `${((split1.user - split0.user) / elapsed).toFixed(1)} / ${((split1.sys - split0.sys) / elapsed).toFixed(1)}`,
    (mem.peak / 2 ** 20).toFixed(1),
    (mem.now / 2 ** 20).toFixed(1),
    `${(mem.anon / 2 ** 20).toFixed(1)} / ${(mem.file / 2 ** 20).toFixed(1)}`,
    after.p50.toFixed(2),
    after.p99.toFixed(2),
  ];
}

const loadStart = loadavg()[0]?.toFixed(2);
const rows: (string | number)[][] = [];
for (const n of peerCounts) rows.push(await runOne(n));
record(
  "agent-footprint",
  `Load average (1 min) at start ${loadStart} and end ${loadavg()[0]?.toFixed(2)}; other work on the machine inflates CPU.\n\n${table(
    [
      "peers",
      "measured s",
      "successful probes/s",
      "CPU ms/s",
      `CPU ms/s, median of ${WINDOW_S} s windows`,
      "user / sys ms/s",
      "peak RSS MiB",
      "RSS at end MiB",
      "of it anon / file MiB",
      "start lateness p50 ms",
      "start lateness p99 ms",
    ],
    rows,
  )}\n\nTargets: N=100 <= 25 ms CPU/s and <= 64 MiB; N=1000 <= 150 ms CPU/s and <= 128 MiB. ${[...planes].join("+")} (udp: 5 packets), default 5 s intervals; measured after a ${warmup} s warm-up.`,
);
process.exit(0);
