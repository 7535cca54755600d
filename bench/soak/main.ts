/**
 * soak: a whole lab (agents + controller + console + Prometheus, started through the lab's programmatic API) under
 * steady console API load for N minutes; stops by itself.
 *
 *   npm run bench -- soak [--minutes 30] [--agents 3] [--rate 4]
 *
 * Load: `--rate` requests per second on the console as the lab's administrator, in a fixed cycle of reads (fleet
 * matrix, fleet overview, users, tokens) and writes (create and delete a user, mint, revoke and delete a token; the
 * stored data stays the same size). Every 10 s each process is sampled: memory (the cgroup working set when the
 * process has a cgroup of its own, else VmRSS and Pss/Anonymous from /proc/<pid>/smaps_rollup, noted in the
 * report), CPU (% of one core over the window), and the window's request latency p50/p99 and error count.
 * Growth per process compares the mean of the first and the last window of min(5 min, N/2) each.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Lab } from "@svc/lab";
import { cpuMs } from "../lib/proc.ts";
import { quantile, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    agents: { type: "string", default: "3" },
    rate: { type: "string", default: "4" },
  },
});
const minutes = Number(values.minutes);
const agentCount = Number(values.agents);
const rate = Number(values.rate);
if (!(minutes > 0) || !(agentCount >= 1) || !(rate > 0)) throw new Error("bad --minutes/--agents/--rate");
const SAMPLE_MS = 10_000;

// ---- processes ------------------------------------------------------------------------------------------------

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Every process below `root`, with its command line. */
function descendants(root: number): { pid: number; cmd: string[] }[] {
  const all: { pid: number; parent: number }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      all.push({ pid: Number(name), parent: parentOf(Number(name)) });
    } catch {
      // ended meanwhile
    }
  }
  const out: number[] = [root];
  for (let i = 0; i < out.length; i++) for (const p of all) if (p.parent === out[i]) out.push(p.pid);
  return out.slice(1).flatMap((pid) => {
    try {
      return [{ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") }];
    } catch {
      return [];
    }
  });
}

/** The lab's processes by role: controller, console, prometheus, and one per agent. */
function labProcesses(lab: Lab): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of lab.nodes) if (n.process.child.pid) out.set(`agent ${n.name}`, n.process.child.pid);
  const agentPids = new Set(out.values());
  for (const { pid, cmd } of descendants(process.pid)) {
    if (agentPids.has(pid)) continue;
    const exe = cmd[0] ?? "";
    if (exe.endsWith("prometheus")) out.set("prometheus", pid);
    else if (exe.endsWith("node") && cmd.includes("controller")) out.set("controller", pid);
    else if (exe.endsWith("node") && cmd.includes("console")) out.set("console", pid);
  }
  // `ip netns exec` replaces itself with node: the agent pid is the node process already
  return out;
}

/** The process's own cgroup (v2 path or v1 memory controller path), or undefined when it shares ours. */
function ownCgroup(pid: number): string | undefined {
  const read = (p: number) => {
    const lines = readFileSync(`/proc/${p}/cgroup`, "utf8").split("\n");
    return lines.find((l) => l.startsWith("0::")) ?? lines.find((l) => l.includes(":memory:")) ?? "";
  };
  const mine = read(process.pid);
  const theirs = read(pid);
  return theirs !== mine ? theirs : undefined;
}

/** Working set of a cgroup: usage minus inactive file pages (as kubelet computes it), bytes. */
function cgroupWorkingSet(line: string): number | undefined {
  const [, controllers, path] = line.split(":");
  const base = controllers === "" ? `/sys/fs/cgroup${path}` : `/sys/fs/cgroup/memory${path}`;
  try {
    const v2 = controllers === "";
    const usage = Number(readFileSync(`${base}/${v2 ? "memory.current" : "memory.usage_in_bytes"}`, "utf8"));
    const stat = readFileSync(`${base}/memory.stat`, "utf8");
    const inactive = Number(
      new RegExp(`^${v2 ? "inactive_file" : "total_inactive_file"} (\\d+)`, "m").exec(stat)?.[1] ?? 0,
    );
    return Math.max(0, usage - inactive);
  } catch {
    return undefined;
  }
}

interface MemSample {
  /** bytes: cgroup working set, else VmRSS */
  mem: number;
  source: "cgroup working set" | "VmRSS";
  pss?: number;
  anon?: number;
}

function memory(pid: number): MemSample {
  const cg = ownCgroup(pid);
  const ws = cg ? cgroupWorkingSet(cg) : undefined;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssBytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  let pss: number | undefined;
  let anon: number | undefined;
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    pss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? Number.NaN) * 1024;
    anon = Number(/^Anonymous:\s+(\d+) kB/m.exec(rollup)?.[1] ?? Number.NaN) * 1024;
  } catch {
    // not readable
  }
  return ws === undefined
    ? { mem: rssBytes, source: "VmRSS", pss, anon }
    : { mem: ws, source: "cgroup working set", pss, anon };
}

// ---- load -----------------------------------------------------------------------------------------------------

class Client {
  #cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {};
    if (this.#cookies.size > 0) headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (method !== "GET") headers["x-csrf-token"] = this.#cookies.get("__Host-svc_csrf") ?? "";
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed };
  }
}

interface Outcome {
  at: number;
  ms: number;
  ok: boolean;
  what: string;
}

/** The steps of the load cycle; each resolves with its name or throws. */
function cycle(c: Client): (() => Promise<string>)[] {
  let n = 0;
  let userId: string | undefined;
  let tokenId: string | undefined;
  const expect = (r: { status: number; body: unknown }, want: number, what: string) => {
    if (r.status !== want) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    return r.body as Record<string, unknown>;
  };
  const read = (path: string, what: string) => async () => {
    expect(await c.request("GET", path), 200, what);
    return what;
  };
  return [
    read("/api/v1/fleet/matrix?protocol=tcp", "matrix"),
    async () => {
      const name = `soak-${process.pid}-${++n}`;
      const body = { username: name, password: `${name}-password`, role: "viewer" };
      userId = expect(await c.request("POST", "/api/v1/users", body), 201, "create user").id as string;
      return "create user";
    },
    read("/api/v1/users", "users"),
    async () => {
      if (userId) expect(await c.request("DELETE", `/api/v1/users/${userId}`), 204, "delete user");
      userId = undefined;
      return "delete user";
    },
    read("/api/v1/fleet/overview", "overview"),
    async () => {
      const minted = expect(await c.request("POST", "/api/v1/tokens", { name: `soak-${++n}` }), 201, "mint");
      tokenId = minted.id as string;
      return "mint token";
    },
    read("/api/v1/tokens", "tokens"),
    async () => {
      // revoke, then delete: the token table stays the same size
      if (tokenId) {
        expect(await c.request("POST", `/api/v1/tokens/${tokenId}/revoke`), 200, "revoke token");
        expect(await c.request("DELETE", `/api/v1/tokens/${tokenId}`), 204, "delete token");
      }
      tokenId = undefined;
      return "revoke+delete token";
    },
  ];
}

// ---- run ------------------------------------------------------------------------------------------------------

const fmtMiB = (b: number) => (Number.isFinite(b) ? (b / 2 ** 20).toFixed(1) : "-");
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

async function main(): Promise<void> {
  const lab = new Lab({
    agents: agentCount,
    scrapeIntervalSeconds: 5,
    log: (l) => console.log(`lab: ${l}`),
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await lab.stop();
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.once(sig, () => {
      console.log(`${sig}: stopping the lab`);
      void stop().then(() => process.exit(130));
    });
  try {
    await lab.start();
    if (!lab.consoleUrl || !lab.consoleAdmin) throw new Error("the lab has no console");
    const pids = labProcesses(lab);
    console.log(`processes: ${[...pids].map(([k, v]) => `${k}=${v}`).join(", ")}`);
    for (const role of ["controller", "console"])
      if (!pids.has(role)) throw new Error(`no ${role} process found`);
    const client = new Client(lab.consoleUrl);
    const login = await client.request("POST", "/api/v1/auth/login", {
      username: lab.consoleAdmin.username,
      password: lab.consoleAdmin.password,
    });
    if (login.status !== 200) throw new Error(`sign-in: ${login.status}`);

    const outcomes: Outcome[] = [];
    const errors = new Map<string, number>();
    const steps = cycle(client);
    const started = Date.now();
    const deadline = started + minutes * 60_000;
    // load: one step every 1/rate s (a slow answer delays the next: a few requests per second at most)
    const load = (async () => {
      for (let i = 0; Date.now() < deadline; i++) {
        const t0 = Date.now();
        let ok = true;
        let what = "";
        try {
          what = await steps[i % steps.length]!();
        } catch (e) {
          ok = false;
          what = String(e).slice(0, 160);
          errors.set(what, (errors.get(what) ?? 0) + 1);
        }
        outcomes.push({ at: t0, ms: Date.now() - t0, ok, what });
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 / rate - (Date.now() - t0))));
      }
    })();

    interface Window {
      /** start and end of the window, ms since the load started */
      start: number;
      t: number;
      mem: Map<string, MemSample>;
      cpuPct: Map<string, number>;
      p50: number;
      p99: number;
      requests: number;
      errors: number;
    }
    const windows: Window[] = [];
    let lastCpu = new Map([...pids].map(([k, pid]) => [k, cpuMs(pid)]));
    let lastT = Date.now();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, Math.max(0, deadline - Date.now()))));
      const now = Date.now();
      const mem = new Map<string, MemSample>();
      const cpuPct = new Map<string, number>();
      const cpu = new Map<string, number>();
      for (const [role, pid] of pids) {
        try {
          mem.set(role, memory(pid));
          cpu.set(role, cpuMs(pid));
          cpuPct.set(role, ((cpu.get(role)! - (lastCpu.get(role) ?? 0)) / (now - lastT)) * 100);
        } catch {
          throw new Error(`${role} (pid ${pid}) is gone`);
        }
      }
      const recent = outcomes.filter((o) => o.at >= lastT && o.at < now);
      const w: Window = {
        start: lastT - started,
        t: now - started,
        mem,
        cpuPct,
        p50: quantile(
          recent.map((o) => o.ms),
          0.5,
        ),
        p99: quantile(
          recent.map((o) => o.ms),
          0.99,
        ),
        requests: recent.length,
        errors: recent.filter((o) => !o.ok).length,
      };
      windows.push(w);
      console.log(
        `t=${Math.round(w.t / 1000)}s  ${[...mem].map(([k, m]) => `${k} ${fmtMiB(m.mem)} MiB ${cpuPct.get(k)?.toFixed(1)}%`).join("  ")}  req ${w.requests} p50 ${w.p50} ms p99 ${w.p99} ms errors ${w.errors}`,
      );
      lastCpu = cpu;
      lastT = now;
    }
    await load;

    // ---- report ----
    const span = Math.min(5 * 60_000, (minutes * 60_000) / 2);
    // a second of slack: windows end a little after each 10 s
    const first = windows.filter((w) => w.t <= span + 1000);
    const last = windows.filter((w) => w.start >= minutes * 60_000 - span - 1000);
    const sources = new Set(windows.flatMap((w) => [...w.mem.values()].map((m) => m.source)));
    const rows = [...pids.keys()].map((role) => {
      const m = (ws: Window[], f: (s: MemSample) => number | undefined) =>
        mean(ws.map((w) => w.mem.get(role)).flatMap((s) => (s ? [f(s) ?? Number.NaN] : [])));
      const a = m(first, (s) => s.mem);
      const b = m(last, (s) => s.mem);
      const cpuFirst = mean(first.map((w) => w.cpuPct.get(role) ?? Number.NaN));
      const cpuLast = mean(last.map((w) => w.cpuPct.get(role) ?? Number.NaN));
      return [
        role,
        fmtMiB(a),
        fmtMiB(b),
        `${b - a >= 0 ? "+" : ""}${fmtMiB(b - a)} (${(((b - a) / a) * 100).toFixed(1)}%)`,
        fmtMiB(m(last, (s) => s.pss)),
        fmtMiB(m(last, (s) => s.anon)),
        `${cpuFirst.toFixed(1)} / ${cpuLast.toFixed(1)}`,
      ];
    });
    const lat = (ws: Window[]) => {
      const o = outcomes.filter(
        (x) => x.at - started >= (ws[0]?.start ?? 0) && x.at - started < (ws.at(-1)?.t ?? 0),
      );
      return `${quantile(
        o.map((x) => x.ms),
        0.5,
      )} / ${quantile(
        o.map((x) => x.ms),
        0.99,
      )} ms, ${o.length} requests, ${o.filter((x) => !x.ok).length} errors`;
    };
    const spanMin = (span / 60_000).toFixed(span % 60_000 === 0 ? 0 : 1);
    const memNote = sources.has("cgroup working set")
      ? "memory: cgroup working set (usage minus inactive file pages) of each process's own cgroup"
      : "memory: VmRSS (the processes share the bench's cgroup, so no per-process working set); Pss and Anonymous from /proc/<pid>/smaps_rollup";
    const body = [
      `${minutes} min, lab of ${agentCount} agents (${lab.netns ? "network namespaces" : "loopback"}) + controller + console (PGlite, the lab's store) + Prometheus (scrape 5 s); load ${rate} req/s on the console as the administrator (matrix, overview, users, tokens; create/delete user, mint/revoke/delete token); sampled every ${SAMPLE_MS / 1000} s. Growth: mean of the first ${spanMin} min vs the last ${spanMin} min. ${memNote}.`,
      "",
      table(
        [
          "process",
          `mem first ${spanMin} min MiB`,
          `mem last ${spanMin} min MiB`,
          "growth",
          "Pss last MiB",
          "anon last MiB",
          "CPU % first / last",
        ],
        rows,
      ),
      "",
      `Requests: first ${spanMin} min p50/p99 ${lat(first)}; last ${spanMin} min ${lat(last)}; whole run ${outcomes.length} requests, ${outcomes.filter((o) => !o.ok).length} errors.`,
      ...(errors.size > 0
        ? ["", "Errors:", ...[...errors].slice(0, 10).map(([e, n]) => `- ${n} x ${e.replace(/\|/g, "/")}`)]
        : []),
    ].join("\n");
    record(`Soak (${minutes} min)`, body);
  } finally {
    await stop();
  }
}

await main();
