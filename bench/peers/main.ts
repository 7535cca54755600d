/**
 * peers: the svc agent side by side with what a user would run instead, in one run, on the same loopback
 * targets, at the same 5 s cadence, each tool in a memory cgroup of its own (128 MiB limit), measured as
 * Kubernetes measures a container:
 * - `svc agent` (the bundle, as shipped): tcp + udp (5 datagrams) + icmp to every target every 5 s, /metrics
 *   scraped every 15 s;
 * - prometheus-blackbox-exporter with an `icmp` and a `tcp_connect` module, driven as Prometheus drives it: a
 *   GET /probe per target and module every 5 s, spread over the interval (this process is the "Prometheus");
 * - `fping -l` (icmp): every target every 5 s, a summary every 10 s (-Q 10).
 * Per tool, the medians of 10 s windows after a 60 s warm-up: CPU ms/s, working set, CPU per probe (one probe =
 * one target checked with one protocol) and its ratio to fping's; a bare idle node in the same kind of cgroup is
 * the agent's baseline. A tool that is not installed is reported as missing (`apt-get install
 * prometheus-blackbox-exporter fping`), the others still run.
 *
 *   npm run bench -- peers [--targets 100,1000] [--seconds 60] [--warmup 60]
 *
 * Targets are 127.1.x.y (loopback); one TCP listener and one UDP echo socket on 0.0.0.0 answer for all of them
 * (tcp_connect succeeds), the kernel answers icmp.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import { AgentUnderTest, buildAgentBundle, openTargets, type Targets } from "../lib/agent-run.ts";
import { MemoryCgroup } from "../lib/cgroup.ts";
import { median, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    targets: { type: "string", default: "100,1000" },
    seconds: { type: "string", default: "60" },
    warmup: { type: "string", default: "60" },
  },
});
const counts = values.targets.split(",").map(Number);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const INTERVAL_MS = 5000;
const WINDOW_S = 10;
const LIMIT = 128 * 2 ** 20;
/** The shipped agent's start (docs/decisions.md, "Memory (agent)"). */
const SHIPPED = { name: "svc agent", nodeArgs: AGENT_NODE_FLAGS, env: AGENT_ENV };

function which(cmd: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const BLACKBOX = which("prometheus-blackbox-exporter") ?? which("blackbox_exporter");
const FPING = which("fping");
const missing = [...(BLACKBOX ? [] : ["prometheus-blackbox-exporter"]), ...(FPING ? [] : ["fping"])];
for (const m of missing) {
  process.stderr.write(`peers: ${m} is MISSING (apt-get install ${m}); its rows say so\n`);
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  return typeof addr === "object" && addr ? addr.port : 0;
}

/** A tool measured in its own cgroup: CPU and working set samples, probes counted by the tool's driver. */
interface Tool {
  name: string;
  measures: string;
  /** probes (target x protocol) per 5 s round */
  probesPerRound: number;
  cgroup: MemoryCgroup;
  /** successful probes so far, as the tool reports them */
  successes(): number;
  stop(): Promise<void>;
}

async function startBlackbox(targets: Targets, n: number): Promise<Tool> {
  const cg = MemoryCgroup.open(`peers-${n}-blackbox`, LIMIT);
  if (typeof cg === "string") throw new Error(cg);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-bb-"));
  const cfg = join(dir, "blackbox.yml");
  writeFileSync(
    cfg,
    [
      "modules:",
      "  icmp:",
      "    prober: icmp",
      "    timeout: 1s",
      "    icmp:",
      "      preferred_ip_protocol: ip4",
      "  tcp_connect:",
      "    prober: tcp",
      "    timeout: 1s",
      "    tcp:",
      "      preferred_ip_protocol: ip4",
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child = cg.spawn(BLACKBOX!, [
    `--config.file=${cfg}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--log.level=warn",
  ]);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/-/healthy`)).ok) break;
    } catch {
      // not yet
    }
    if (i > 100 || child.exitCode !== null) throw new Error("blackbox exporter did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  let ok = 0;
  let failed = 0;
  const scrape = async (module: string, target: string) => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/probe?module=${module}&target=${target}`, {
        headers: { "X-Prometheus-Scrape-Timeout-Seconds": "5" },
      });
      const text = await res.text();
      if (/^probe_success 1$/m.test(text)) ok++;
      else failed++;
    } catch {
      failed++;
    }
  };
  // Prometheus spreads a job's targets over the interval (a fixed offset per target): a 100 ms tick fires the
  // targets whose offset falls in it
  const t0 = performance.now();
  let next = 0;
  const tick = setInterval(() => {
    const upTo = Math.floor(((performance.now() - t0) / INTERVAL_MS) * n);
    for (; next <= upTo; next++) {
      const i = next % n;
      const addr = targets.addresses[i]!;
      void scrape("icmp", addr);
      void scrape("tcp_connect", `${addr}:${targets.tcpPort}`);
    }
  }, 100);
  return {
    name: "blackbox_exporter",
    measures:
      "per scrape: icmp one echo (success, RTT by phase) and tcp_connect (success, connect time); history and loss ratios are Prometheus's work",
    probesPerRound: 2 * n,
    cgroup: cg,
    successes: () => ok,
    async stop() {
      clearInterval(tick);
      if (failed > 0) process.stderr.write(`peers: blackbox N=${n}: ${failed} failed probes\n`);
      child.kill("SIGTERM");
      await cg.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startFping(targets: Targets, n: number): Promise<Tool> {
  const cg = MemoryCgroup.open(`peers-${n}-fping`, LIMIT);
  if (typeof cg === "string") throw new Error(cg);
  // -l loop, -p period per target, -i gap between targets (spread over the period), -Q 10: a per-target summary
  // every 10 s on stderr (counted here), nothing per reply
  const gap = Math.max(1, Math.floor(INTERVAL_MS / n));
  const child: ChildProcess = cg.spawn(
    FPING!,
    ["-l", "-p", String(INTERVAL_MS), "-i", String(gap), "-t", "1000", "-Q", "10", ...targets.addresses],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let received = 0;
  const rcv = new Map<string, number>();
  let buf = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    buf += d;
    const lines = buf.split("\n");
    buf = lines.pop() ?? "";
    for (const l of lines) {
      // "127.1.0.1 : xmt/rcv/%loss = 2/2/0%, min/avg/max = ..." (counts since the previous summary)
      const m = /^(\S+)\s+: xmt\/rcv\/%loss = \d+\/(\d+)\//.exec(l);
      if (m) {
        received += Number(m[2]);
        rcv.set(m[1]!, Number(m[2]));
      }
    }
  });
  return {
    name: "fping -l",
    measures: "icmp: one echo per target per period (RTT, loss per summary); nothing else",
    probesPerRound: n,
    cgroup: cg,
    successes: () => received,
    async stop() {
      child.kill("SIGTERM");
      await cg.remove();
    },
  };
}

async function startAgent(targets: Targets, n: number): Promise<{ tool: Tool; agent: AgentUnderTest }> {
  const agent = await AgentUnderTest.start({
    targets,
    variant: SHIPPED,
    planes: new Set(["tcp", "udp", "icmp"]),
    scrapeSeconds: 15,
    cgroupName: `peers-${n}-agent`,
  });
  const last = 0;
  return {
    agent,
    tool: {
      name: "svc agent",
      measures:
        "tcp (connect time, success), udp (5 datagrams: RTT histogram, jitter, loss ratio), icmp (RTT histogram, loss) per target; start lateness; served on /metrics",
      probesPerRound: 3 * n,
      cgroup: agent.cgroup,
      // successful probes from the agent's /metrics, refreshed at each window's sample
      successes: () => last,
      stop: () => agent.stop(),
    },
  };
}

interface Row {
  tool: string;
  measures: string;
  probesPerSec: number;
  successPerSec: number;
  cpu: number[];
  ws: number[];
  usage: number[];
}

async function runN(n: number): Promise<{ rows: Row[]; bare: number }> {
  const targets = await openTargets(n);
  const tools: Tool[] = [];
  let agentRun: AgentUnderTest | undefined;
  const bare = MemoryCgroup.open(`peers-${n}-bare`, LIMIT);
  if (typeof bare === "string") throw new Error(bare);
  try {
    bare.spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], {
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    const a = await startAgent(targets, n);
    agentRun = a.agent;
    tools.push(a.tool);
    if (BLACKBOX) tools.push(await startBlackbox(targets, n));
    if (FPING) tools.push(await startFping(targets, n));
    process.stderr.write(
      `peers: N=${n}: ${tools.map((t) => t.name).join(", ")} running; warm-up ${warmup} s\n`,
    );
    await new Promise((r) => setTimeout(r, warmup * 1000));
    const cpu: number[][] = tools.map(() => []);
    const ws: number[][] = tools.map(() => []);
    const usage: number[][] = tools.map(() => []);
    const bareWs: number[] = [];
    let agentSuccess = (await agentRun.sample()).successes;
    const succ0 = tools.map((t) => (t.name === "svc agent" ? agentSuccess : t.successes()));
    let prev = tools.map((t) => t.cgroup.cpuMs());
    let prevT = performance.now();
    const t0 = prevT;
    for (let done = 0; done < seconds; done += WINDOW_S) {
      await new Promise((r) => setTimeout(r, Math.min(WINDOW_S, seconds - done) * 1000));
      const now = performance.now();
      const cur = tools.map((t) => t.cgroup.cpuMs());
      for (const [i, t] of tools.entries()) {
        cpu[i]!.push((cur[i]! - prev[i]!) / ((now - prevT) / 1000));
        const m = t.cgroup.memory();
        ws[i]!.push(m.workingSet / 2 ** 20);
        usage[i]!.push(m.usage / 2 ** 20);
      }
      bareWs.push(bare.memory().workingSet / 2 ** 20);
      prev = cur;
      prevT = now;
      process.stderr.write(
        `peers: N=${n}: ${tools.map((t, i) => `${t.name} ${cpu[i]!.at(-1)!.toFixed(1)} ms/s ${ws[i]!.at(-1)!.toFixed(1)} MiB`).join("; ")}\n`,
      );
    }
    agentSuccess = (await agentRun.sample()).successes;
    const elapsed = (performance.now() - t0) / 1000;
    const rows = tools.map((t, i) => ({
      tool: t.name,
      measures: t.measures,
      probesPerSec: t.probesPerRound / (INTERVAL_MS / 1000),
      successPerSec: ((t.name === "svc agent" ? agentSuccess : t.successes()) - succ0[i]!) / elapsed,
      cpu: cpu[i]!,
      ws: ws[i]!,
      usage: usage[i]!,
    }));
    return { rows, bare: median(bareWs) };
  } finally {
    for (const t of tools) await t.stop();
    if (agentRun && !tools.some((t) => t.name === "svc agent")) await agentRun.stop();
    await bare.remove();
    targets.close();
  }
}

const probe = MemoryCgroup.open("probe", 2 ** 20);
if (typeof probe === "string") {
  console.error(`peers: needs a memory cgroup (root): ${probe}`);
  process.exit(1);
}
await probe.remove();
buildAgentBundle();

const loadStart = loadavg().map((x) => x.toFixed(2));
const sections: string[] = [];
const measures = new Map<string, string>();
for (const n of counts) {
  const { rows, bare } = await runN(n);
  const fping = rows.find((r) => r.tool === "fping -l");
  const fpingUs = fping ? (median(fping.cpu) * 1000) / fping.probesPerSec : Number.NaN;
  for (const r of rows) measures.set(r.tool, r.measures);
  const out = rows.map((r) => {
    const us = (median(r.cpu) * 1000) / r.probesPerSec;
    return [
      r.tool,
      r.probesPerSec.toFixed(0),
      r.successPerSec.toFixed(0),
      `${median(r.cpu).toFixed(1)} (${Math.min(...r.cpu).toFixed(1)}-${Math.max(...r.cpu).toFixed(1)})`,
      us.toFixed(0),
      Number.isNaN(fpingUs) ? "fping missing" : (us / fpingUs).toFixed(2),
      `${median(r.ws).toFixed(1)} (max ${Math.max(...r.ws).toFixed(1)})`,
      r.tool === "svc agent" ? (median(r.ws) - bare).toFixed(1) : "",
      median(r.usage).toFixed(1),
    ];
  });
  for (const m of missing)
    out.push([m, "", "", `MISSING: not installed (apt-get install ${m})`, "", "", "", "", ""]);
  sections.push(
    `### ${n} targets\n\nBare idle node in the same kind of cgroup: ${bare.toFixed(1)} MiB working set.\n\n${table(
      [
        "tool",
        "probes/s (target x protocol)",
        "successful/s",
        `CPU ms/s, median (min-max) of ${WINDOW_S} s windows`,
        "CPU us per probe",
        "x fping per probe",
        "working set MiB, median",
        "above bare node MiB",
        "cgroup usage MiB",
      ],
      out,
    )}`,
  );
}
record(
  "peers (svc agent, blackbox_exporter, fping)",
  `One invocation: the tools ran at once on the same ${counts.join(" then ")} loopback targets (127.1.x.y), every target every 5 s, each in its own memory cgroup (cgroup v${probe.version}, limit 128 MiB); ${warmup} s warm-up, then ${seconds} s in ${WINDOW_S} s windows (medians). A probe = one target checked with one protocol (the agent: 3 per target per round, udp being 5 datagrams; blackbox_exporter: 2; fping: 1). The scraping (Prometheus's side) is not counted for either. Load average (1/5/15 min) at start ${loadStart.join(" / ")}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(
      " / ",
    )}.\n\n${sections.join("\n\n")}\n\nWhat each measures:\n\n${[...measures.entries()].map(([k, v]) => `- ${k}: ${v}`).join("\n")}`,
);
process.exit(0);
