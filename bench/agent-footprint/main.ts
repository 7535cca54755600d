/**
 * agent-footprint: real `svc agent` processes (the bundle), each in a memory cgroup of its own with the chart's
 * 128 MiB limit, probing N simulated peers on loopback (tcp + udp + icmp at the default 5 s intervals), measured
 * as Kubernetes measures a container. Per 10 s window after a 60 s warm-up: CPU ms/s, working set (usage minus
 * inactive file pages), cgroup usage, RSS split into anonymous and file pages, and probe start lateness (the
 * agent's own p50/p99 gauges). Steady state = the medians of the windows.
 *
 *   npm run bench -- agent-footprint [--peers 100,1000] [--seconds 60] [--warmup 60]
 *                                    [--variants shipped,plain,...] [--first-loader] [--profile]
 *                                    [--compare-bundle DIR/agent.mjs]
 *
 * Several variants run side by side in one invocation (same targets, same load on the machine), each with a
 * controller of its own in this process: a variant is a way of starting the agent's node (flags, environment)
 * and is how each start-up memory measure is judged (docs/decisions.md, "Memory (agent)"). Beside them, in
 * cgroups of the same kind:
 * - a bare idle `node` (the baseline the goals are counted from);
 * - the first variant again and a bare idle node, each run from a private copy of the node executable no other
 *   process has read, so node's own file pages are charged to it (as in a fresh pod: "first loader");
 * - with --first-loader, every variant and the bare node run from a private copy of node each (no extra
 *   first-loader run then);
 * - with --profile, the first variant once more with `--cpu-prof` and a heap snapshot at the end (SIGUSR2),
 *   summarized in the output (its own figures are not reported: the profiler costs CPU).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import {
  type AgentSample,
  AgentUnderTest,
  type AgentVariant,
  buildAgentBundle,
  openTargets,
} from "../lib/agent-run.ts";
import { freshCopy, MemoryCgroup, mib } from "../lib/cgroup.ts";
import { summarizeCpuProfile, summarizeHeapSnapshot } from "../lib/profile.ts";
import { median, record, table } from "../lib/report.ts";

/**
 * The ways of starting the agent's node. `shipped` is what the docs and start scripts give (docs/decisions.md);
 * `plain` is node's defaults; the others are plain plus one measure each. (The page release of the node
 * executable, measured here as a preload before it was removed, is in docs/benchmarks.md.)
 */
const VARIANTS: Record<string, Omit<AgentVariant, "name">> = {
  shipped: { nodeArgs: AGENT_NODE_FLAGS, env: AGENT_ENV },
  plain: {},
  "no-opt": { nodeArgs: ["--no-opt"] },
  "semi-space-1": { nodeArgs: ["--max-semi-space-size=1"] },
  "heap-growing-25": { nodeArgs: ["--heap-growing-percent=25"] },
  "arena-max-1": { env: { MALLOC_ARENA_MAX: "1" } },
  "mmap-threshold-64k": { env: { MALLOC_MMAP_THRESHOLD_: "65536" } },
  // V8's own memory-for-speed switches, each on top of `shipped`
  "shipped+lite-mode": { nodeArgs: [...AGENT_NODE_FLAGS, "--lite-mode"], env: AGENT_ENV },
  "shipped+optimize-for-size": { nodeArgs: [...AGENT_NODE_FLAGS, "--optimize-for-size"], env: AGENT_ENV },
  "shipped+single-threaded": { nodeArgs: [...AGENT_NODE_FLAGS, "--single-threaded"], env: AGENT_ENV },
  "shipped+no-sparkplug": { nodeArgs: [...AGENT_NODE_FLAGS, "--no-sparkplug"], env: AGENT_ENV },
  "shipped+v8-pool-1": { nodeArgs: [...AGENT_NODE_FLAGS, "--v8-pool-size=1"], env: AGENT_ENV },
};

const { values } = parseArgs({
  options: {
    peers: { type: "string", default: "100,1000" },
    seconds: { type: "string", default: "60" },
    warmup: { type: "string", default: "60" },
    variants: { type: "string", default: "shipped" },
    // the probe checkers to run (the others are disabled); for attributing cost to one checker
    planes: { type: "string", default: "tcp,udp,icmp" },
    // how often /metrics is scraped, as Prometheus would (0: never)
    scrape: { type: "string", default: "15" },
    fresh: { type: "boolean", default: true },
    "first-loader": { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    // another agent bundle (e.g. built from an earlier commit with scripts/build.mjs --out) run beside the
    // variants with the first variant's flags and environment: a code change measured side by side
    "compare-bundle": { type: "string" },
  },
});
const peerCounts = values.peers.split(",").map(Number);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const planes = new Set(values.planes.split(","));
const scrapeSeconds = Number(values.scrape);
const variants: AgentVariant[] = values.variants.split(",").map((name) => {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(", ")}`);
  return { name, ...v };
});
const first = variants[0]!;
if (values["compare-bundle"]) {
  variants.push({ ...first, name: `${first.name}, other bundle`, bundle: values["compare-bundle"] });
}
const WINDOW_S = 10;

const probe = MemoryCgroup.open("probe", 2 ** 20);
if (typeof probe === "string") {
  console.error(`agent-footprint: needs a memory cgroup (root): ${probe}`);
  process.exit(1);
}
await probe.remove();
buildAgentBundle();

/** A bare idle node in a cgroup of the same kind. */
async function bareNode(name: string, node: string): Promise<MemoryCgroup> {
  const cg = MemoryCgroup.open(name, 128 * 2 ** 20);
  if (typeof cg === "string") throw new Error(cg);
  cg.spawn(node, ["-e", "setInterval(() => {}, 1 << 30)"], { env: { ...process.env, NODE_OPTIONS: "" } });
  return cg;
}

const mi = (b: number) => Number(mib(b));
const fmt = (xs: number[], digits = 1) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;

interface Result {
  rows: (string | number)[][];
  windows: string;
  baseline: { bare: number; bareFresh: number; agentFresh: number | undefined };
  profile: string;
}

async function runN(n: number): Promise<Result> {
  const targets = await openTargets(n);
  const copies: { path: string; remove: () => void }[] = [];
  const agents: AgentUnderTest[] = [];
  const bare: MemoryCgroup[] = [];
  let fresh: AgentUnderTest | undefined;
  let profiled: AgentUnderTest | undefined;
  const profDir = mkdtempSync(join(tmpdir(), "svc-bench-prof-"));
  try {
    const allFresh = values["first-loader"];
    for (const v of variants) {
      const copy = allFresh ? freshCopy(process.execPath, tmpdir()) : undefined;
      if (copy) copies.push(copy);
      agents.push(
        await AgentUnderTest.start({
          targets,
          variant: v,
          planes,
          scrapeSeconds,
          cgroupName: `${n}-${v.name.replace(/[^a-z0-9-]/gi, "_")}`,
          node: copy?.path,
        }),
      );
    }
    const bareCopy = allFresh ? freshCopy(process.execPath, tmpdir()) : undefined;
    if (bareCopy) copies.push(bareCopy);
    bare.push(await bareNode(`${n}-bare`, bareCopy?.path ?? process.execPath));
    if (values.fresh && !allFresh) {
      const a = freshCopy(process.execPath, tmpdir());
      const b = freshCopy(process.execPath, tmpdir());
      copies.push(a, b);
      fresh = await AgentUnderTest.start({
        targets,
        variant: first,
        planes,
        scrapeSeconds,
        node: a.path,
        cgroupName: `${n}-fresh`,
      });
      bare.push(await bareNode(`${n}-bare-fresh`, b.path));
    }
    if (values.profile) {
      profiled = await AgentUnderTest.start({
        targets,
        variant: {
          name: `${first.name}+profile`,
          env: first.env,
          nodeArgs: [
            ...(first.nodeArgs ?? []),
            "--cpu-prof",
            `--cpu-prof-dir=${profDir}`,
            "--heapsnapshot-signal=SIGUSR2",
            `--diagnostic-dir=${profDir}`,
          ],
        },
        planes,
        scrapeSeconds,
        cgroupName: `${n}-profile`,
        // V8 builds a heap snapshot in memory: more than the 128 MiB the measured agents get
        limitBytes: 1024 * 2 ** 20,
      });
    }
    process.stderr.write(
      `agent-footprint: N=${n} ${agents.length} agents ready; warm-up ${warmup} s, measuring ${seconds} s\n`,
    );
    await new Promise((r) => setTimeout(r, warmup * 1000));
    const measured = fresh ? [...agents, fresh] : agents;
    const samples: AgentSample[][] = [];
    const bareWs: number[][] = bare.map(() => []);
    samples.push(await Promise.all(measured.map((a) => a.sample())));
    const times = [performance.now()];
    for (let done = 0; done < seconds; done += WINDOW_S) {
      await new Promise((r) => setTimeout(r, Math.min(WINDOW_S, seconds - done) * 1000));
      samples.push(await Promise.all(measured.map((a) => a.sample())));
      times.push(performance.now());
      for (const [i, cg] of bare.entries()) bareWs[i]!.push(cg.memory().workingSet);
      const w = samples.length - 1;
      process.stderr.write(
        `agent-footprint: N=${n} window ${w}: ${measured
          .map((a, i) => {
            const cpu =
              (samples[w]![i]!.cpuMs - samples[w - 1]![i]!.cpuMs) / ((times[w]! - times[w - 1]!) / 1000);
            return `${a.name}${a === fresh ? "(fresh)" : ""} ${cpu.toFixed(1)} ms/s ${mib(samples[w]![i]!.mem.workingSet)} MiB`;
          })
          .join("; ")}\n`,
      );
    }
    const bareMed = median(bareWs[0]!);
    const rows: (string | number)[][] = [];
    const windowLines: string[] = [];
    measured.forEach((a, i) => {
      const cpu: number[] = [];
      const ws: number[] = [];
      const usage: number[] = [];
      const p50: number[] = [];
      const p99: number[] = [];
      for (let w = 1; w < samples.length; w++) {
        const s = samples[w]![i]!;
        cpu.push((s.cpuMs - samples[w - 1]![i]!.cpuMs) / ((times[w]! - times[w - 1]!) / 1000));
        ws.push(mi(s.mem.workingSet));
        usage.push(mi(s.mem.usage));
        p50.push(s.latenessP50Ms);
        p99.push(s.latenessP99Ms);
      }
      const last = samples.at(-1)![i]!;
      const elapsed = (times.at(-1)! - times[0]!) / 1000;
      const probesPerSec = (last.successes - samples[0]![i]!.successes) / elapsed;
      const label = a === fresh || values["first-loader"] ? `${a.name}, first loader` : a.name;
      const v = variants.find((x) => x.name === a.name);
      rows.push([
        label,
        `${[...(v?.nodeArgs ?? []), ...Object.entries(v?.env ?? {}).map(([k, x]) => `${k}=${x}`)].join(" ") || "(none)"}`,
        probesPerSec.toFixed(0),
        fmt(cpu),
        fmt(ws),
        a === fresh ? "" : (median(ws) - mi(bareMed)).toFixed(1),
        fmt(usage),
        `${mib(last.rssAnon)} / ${mib(last.rssFile)}`,
        `${median(p50).toFixed(2)} / ${Math.max(...p99).toFixed(2)}`,
        String(a.cgroup.oomKills()),
      ]);
      windowLines.push(
        `${label}: CPU ${cpu.map((x) => x.toFixed(1)).join(", ")} ms/s; working set ${ws.join(", ")} MiB`,
      );
    });
    let profile = "";
    if (profiled) {
      profiled.signal("SIGUSR2");
      // the snapshot is written synchronously by the agent's main thread: wait for the file to settle
      let snap: string | undefined;
      for (let i = 0; i < 300 && !snap; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const f = readdirSync(profDir).find((x) => x.endsWith(".heapsnapshot"));
        if (f) {
          // written while the agent's thread is busy: done when the size holds still for 2 s
          let size = -1;
          for (let k = 0; k < 120; k++) {
            await new Promise((r) => setTimeout(r, 1000));
            const now = statSync(join(profDir, f)).size;
            if (now === size && now > 0 && k >= 2) break;
            size = now;
          }
          snap = join(profDir, f);
        }
      }
      await profiled.stop();
      profiled = undefined;
      const cpuFile = readdirSync(profDir).find((x) => x.endsWith(".cpuprofile"));
      const parts: string[] = [];
      if (cpuFile) {
        // the measured span only: the last `seconds` before the heap snapshot
        const c = summarizeCpuProfile(join(profDir, cpuFile), seconds * 1000);
        parts.push(
          `CPU profile (${first.name} with --cpu-prof, N=${n}, ${(c.spanMs / 1000).toFixed(0)} s after the warm-up, ${(c.busyMs / (c.spanMs / 1000)).toFixed(1)} ms/s of JavaScript-thread samples; self time, % of non-idle samples):\n\n${table(["function", "self"], c.rows)}`,
        );
      }
      let h: ReturnType<typeof summarizeHeapSnapshot> | undefined;
      try {
        h = snap && existsSync(snap) ? summarizeHeapSnapshot(snap) : undefined;
      } catch (err) {
        parts.push(`Heap snapshot unreadable: ${(err as Error).message}`);
      }
      if (h) {
        parts.push(
          `Heap snapshot at the end (${first.name}, N=${n}): ${mib(h.totalBytes)} MiB of live objects. By type: ${h.byType
            .slice(0, 8)
            .map(([t, b]) => `${t} ${mib(b)}`)
            .join(", ")} MiB.\n\n${table(
            ["largest (type: name)", "self MiB", "count"],
            h.byName.map(([k, b, c]) => [k.replace(/\|/g, "/"), mib(b), c]),
          )}`,
        );
      }
      profile = parts.join("\n\n");
    }
    return {
      rows,
      windows: windowLines.join("\n"),
      baseline: {
        bare: mi(bareMed),
        bareFresh: bareWs[1] ? mi(median(bareWs[1])) : Number.NaN,
        agentFresh: undefined,
      },
      profile,
    };
  } finally {
    for (const a of [...agents, ...(fresh ? [fresh] : []), ...(profiled ? [profiled] : [])]) await a.stop();
    for (const cg of bare) await cg.remove();
    for (const c of copies) c.remove();
    rmSync(profDir, { recursive: true, force: true });
    targets.close();
  }
}

const loadStart = loadavg().map((x) => x.toFixed(2));
const sections: string[] = [];
for (const n of peerCounts) {
  const r = await runN(n);
  sections.push(
    `### ${n} peers\n\nBare idle node in the same kind of cgroup${values["first-loader"] ? " (first loader of its executable)" : ""}: ${r.baseline.bare.toFixed(1)} MiB working set` +
      (Number.isNaN(r.baseline.bareFresh)
        ? ""
        : `; as first loader of its executable ${r.baseline.bareFresh.toFixed(1)} MiB`) +
      `.\n\n${table(
        [
          "agent",
          "node flags / environment",
          "successful probes/s",
          `CPU ms/s, median (min-max) of ${WINDOW_S} s windows`,
          "working set MiB, median (min-max)",
          "working set above bare node MiB",
          "cgroup usage MiB",
          "RSS anon / file MiB at end",
          "start lateness p50 / max p99 ms",
          "OOM kills",
        ],
        r.rows,
      )}\n\nWindows:\n\n${r.windows
        .split("\n")
        .map((l) => `- ${l}`)
        .join("\n")}${r.profile ? `\n\n${r.profile}` : ""}`,
  );
  // each N as it ends: a later failure does not lose it
  console.log(sections.at(-1));
}
record(
  "agent-footprint",
  `Each agent in its own memory cgroup (cgroup v${existsSync("/sys/fs/cgroup/cgroup.controllers") ? 2 : 1}, limit 128 MiB); ${[...planes].join("+")} (udp: 5 packets), default 5 s intervals, /metrics scraped every ${scrapeSeconds} s; ${warmup} s warm-up, then ${seconds} s in ${WINDOW_S} s windows; all agents of one N ran at once, each with its own controller in the bench process. Working set = usage minus inactive file pages. Load average (1/5/15 min) at start ${loadStart.join(" / ")}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ")}; other work on the machine inflates CPU.\n\n${sections.join("\n\n")}`,
);
process.exit(0);
