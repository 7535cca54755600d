/**
 * console-load: `svc console` on each store (the embedded PGlite the lab uses, then PostgreSQL as in production)
 * under 50 concurrent clients reading the fleet routes (overview, matrix, topology, one node) and the settings
 * routes (console config, users, tokens, RBAC roles and bindings) for 60 s, measured from outside: requests/s,
 * latency p50/p99 per route group and overall (timed in this process, from sending a request to the end of its
 * body), errors; the console's working set (its own memory cgroup: usage minus inactive file pages) and CPU before,
 * during and after the load; then the console's CPU per request of each route group alone (10 s of the same loops
 * over that group's routes: console CPU time / requests answered). Last, the host's floor (a bare node HTTP
 * server under the same loops), all in one run and one section of docs/benchmarks.md.
 *
 *   npm run bench -- console-load [--clients 50] [--seconds 60] [--agents 3] [--store both|pglite|postgres]
 *                                   [--profile] [--node-args="--max-semi-space-size=4 ..."]
 *
 * --store picks the stores (default both). On postgres the console has a database of its own on the local
 * PostgreSQL, made for the run and dropped after it (`--postgres` names the server, default
 * postgres://postgres@127.0.0.1:5432/test); on pglite the WebAssembly PostgreSQL lives in the console's own memory.
 *
 * The lab (controller, agents on loopback, Prometheus scraping every 5 s, console) runs first for a warm-up of
 * 20 s so the fleet routes have data. Each client is a closed loop (the next request when the previous answered)
 * over the routes in turn, all on one signed-in administrator session. The load generator shares the machine's
 * 2 cores with the console: the latency includes its own event-loop lag.
 *
 * --profile runs the console with `--cpu-prof` and adds where its CPU went under the load (self time by function);
 * the profiler costs the console some CPU, so compare figures of runs with the same switch.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Lab } from "@svc/lab";
import pg from "pg";
import { stringify } from "yaml";
import { MemoryCgroup, mib } from "../lib/cgroup.ts";
import { cpuMs, rss } from "../lib/proc.ts";
import { summarizeCpuProfile } from "../lib/profile.ts";
import { median, quantile, record, table } from "../lib/report.ts";
import { drive } from "./drive.ts";
import { httpFloor } from "./floor.ts";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "50" },
    seconds: { type: "string", default: "60" },
    agents: { type: "string", default: "3" },
    store: { type: "string", default: "both" },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432/test" },
    profile: { type: "boolean", default: false },
    "node-args": { type: "string", default: "" },
  },
});
if (values.store !== "pglite" && values.store !== "postgres" && values.store !== "both") {
  throw new Error(`--store must be both, pglite or postgres, got ${values.store}`);
}
type StoreKind = "pglite" | "postgres";
const stores: StoreKind[] = values.store === "both" ? ["pglite", "postgres"] : [values.store];
const clients = Number(values.clients);
/** node flags the console runs with (e.g. `--node-args=--max-semi-space-size=4`), space-separated */
const nodeArgs = values["node-args"].split(" ").filter((a) => a !== "");
const SVC_BIN = new URL("../../apps/cli/bin/svc.mjs", import.meta.url).pathname;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  return typeof addr === "object" && addr ? addr.port : 0;
}
const seconds = Number(values.seconds);

/** Runs one statement as the --postgres server's user, on a connection of its own. */
async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: values.postgres });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Stops the profiled console (it writes its profile on a clean exit) and summarizes the load's span. */
async function profileOf(c: ChildProcess, profDir: string, loadSeconds: number): Promise<string> {
  const exited = new Promise((r) => c.once("exit", r));
  c.kill("SIGTERM");
  await exited;
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) return "\n\nNo CPU profile was written (the console did not exit cleanly).";
  // the span: the load and what came after it (10 s, the floor's 15 s, the sizes; the console idle, its samples
  // left out)
  const p = summarizeCpuProfile(join(profDir, file), (loadSeconds + 40) * 1000, 25);
  return `\n\nWith --cpu-prof: where the console's CPU went (self time, % of ${(p.busyMs / 1000).toFixed(1)} s busy):\n\n${table(
    ["function", "self"],
    p.rows,
  )}`;
}

/** A new database on the PostgreSQL server of --postgres, for this run alone; its URL. */
async function freshPostgres(): Promise<string> {
  pgDatabase = `svc_bench_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${pgDatabase}`);
  const url = new URL(values.postgres);
  url.pathname = `/${pgDatabase}`;
  return url.toString();
}

async function dropPostgres(): Promise<void> {
  if (pgDatabase !== "") await adminQuery(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
}

const lab = new Lab({
  agents: Number(values.agents),
  netns: false,
  console: false,
  log: (l) => console.log(`lab: ${l}`),
});
const cgroups: MemoryCgroup[] = [];
const children: ChildProcess[] = [];
let pgDatabase = "";
const dir = mkdtempSync(join(tmpdir(), "svc-bench-console-"));

/** What one store's console did. */
interface StoreRun {
  store: StoreKind;
  text: string;
  bodyBytes: number;
}

/** Starts a console on `store` in a memory cgroup of its own, loads it, measures it; stops it. */
async function runStore(store: StoreKind): Promise<StoreRun> {
  const onPostgres = store === "postgres";
  // the console as the lab starts it (bootstrap admin), but in a memory cgroup of its own from its first page: the
  // lab's own console would share the bench's cgroup (charges do not move with a process here)
  const opened = MemoryCgroup.open(`console-${store}`, 4 * 2 ** 30);
  if (typeof opened === "string") throw new Error(`console-load needs a memory cgroup (root): ${opened}`);
  const cg = opened;
  cgroups.push(cg);
  const sdir = join(dir, store);
  mkdirSync(sdir);
  const [httpPort, metricsPort] = [await freePort(), await freePort()];
  const password = randomBytes(12).toString("base64url");
  writeFileSync(join(sdir, "admin-password"), `${password}\n`, { mode: 0o600 });
  writeFileSync(
    join(sdir, "console.yaml"),
    stringify({
      httpPort,
      metricsPort,
      controller: { url: lab.controllerUrl },
      auth: {
        mode: "local",
        local: { bootstrapAdmin: "admin", bootstrapPasswordFile: join(sdir, "admin-password") },
      },
      database: { url: onPostgres ? await freshPostgres() : `pglite:${join(sdir, "console-db")}` },
      ...(lab.prometheusUrl ? { prometheus: { url: lab.prometheusUrl } } : {}),
    }),
  );
  const consoleNodeArgs = [
    ...nodeArgs,
    ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${join(sdir, "prof")}`] : []),
  ];
  const child = cg.spawn(
    process.execPath,
    [...consoleNodeArgs, SVC_BIN, "console", "--config", join(sdir, "console.yaml")],
    {
      env: { ...process.env, SVC_EXIT_WITH_STDIN: "1" },
      stdio: ["pipe", "ignore", "inherit"],
    },
  );
  children.push(child);
  const pid = child.pid ?? 0;
  const base = `http://127.0.0.1:${httpPort}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600 || child.exitCode !== null) throw new Error("console did not become ready in 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  const started = cg.memory();
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((l) => l.split(";")[0])
    .join("; ");
  const node = lab.nodes[0]?.name ?? "node-1";
  const routes: [group: string, path: string][] = [
    ["fleet", "/api/v1/fleet/overview"],
    ["fleet", "/api/v1/fleet/matrix?protocol=tcp"],
    ["fleet", "/api/v1/fleet/topology"],
    ["fleet", `/api/v1/fleet/nodes/${node}`],
    ["settings", "/api/v1/config"],
    ["settings", "/api/v1/users"],
    ["settings", "/api/v1/tokens"],
    ["settings", "/api/v1/rbac/roles"],
    ["settings", "/api/v1/rbac/bindings"],
  ];
  for (const [, path] of routes) {
    const r = await fetch(`${base}${path}`, { headers: { cookie } });
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${(await r.text()).slice(0, 200)}`);
    await r.arrayBuffer();
  }
  console.log(`console-load (${store}): warm-up 20 s (Prometheus scrapes the agents)`);
  await new Promise((r) => setTimeout(r, 20_000));

  const idle = cg.memory();
  const idleRss = rss(pid);
  const loadStart = loadavg().map((x) => x.toFixed(2));
  const ws: number[] = [];
  const cpuRates: number[] = [];
  let prevCpu = cpuMs(pid);
  let prevT = performance.now();
  const sampler = setInterval(() => {
    ws.push(cg.memory().workingSet);
    const c = cpuMs(pid);
    const t = performance.now();
    cpuRates.push((c - prevCpu) / (t - prevT));
    prevCpu = c;
    prevT = t;
  }, 1000);
  const {
    times,
    errors,
    elapsed,
    generatorCpu: genShare,
  } = await drive(base, routes, { cookie }, clients, seconds);
  // each group alone: the console's CPU time per request answered
  const perGroup: (string | number)[][] = [];
  for (const group of ["fleet", "settings"]) {
    const c0 = cpuMs(pid);
    const d = await drive(
      base,
      routes.filter(([g]) => g === group),
      { cookie },
      clients,
      10,
    );
    const n = d.times.get(group)?.length ?? 0;
    const xs = d.times.get(group) ?? [];
    perGroup.push([
      group,
      n,
      (n / d.elapsed).toFixed(0),
      ((cpuMs(pid) - c0) / Math.max(n, 1)).toFixed(2),
      quantile(xs, 0.99).toFixed(1),
      d.errors.size === 0 ? "0" : [...d.errors.values()].reduce((a, b) => a + b, 0),
    ]);
  }
  clearInterval(sampler);
  const peakRss = rss(pid).peak;
  await new Promise((r) => setTimeout(r, 10_000));
  const after = cg.memory();
  const rssAfter = rss(pid).now;
  const all = [...times.values()].flat();
  const sizes: number[] = [];
  for (const [, path] of routes)
    sizes.push((await (await fetch(`${base}${path}`, { headers: { cookie } })).arrayBuffer()).byteLength);
  const profileText = values.profile ? await profileOf(child, join(sdir, "prof"), elapsed + 20) : "";
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  const row = (name: string, xs: number[]) => [
    name,
    xs.length,
    (xs.length / elapsed).toFixed(0),
    quantile(xs, 0.5).toFixed(1),
    quantile(xs, 0.99).toFixed(1),
    xs.reduce((m, x) => Math.max(m, x), 0).toFixed(1),
  ];
  const errorText =
    errors.size === 0
      ? "0 errors"
      : `errors: ${[...errors.entries()].map(([k, v]) => `${k} x${v}`).join(", ")}`;
  const cpu = median(cpuRates);
  const text = `### ${store === "postgres" ? "PostgreSQL (a database of its own on the local server, another process: not in the console's cgroup)" : "PGlite (embedded, in the console's cgroup)"}

Load average (1/5/15 min) at start ${loadStart.join(" / ")}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ")}.

${table(
  ["routes", "requests", "req/s", "p50 ms", "p99 ms", "max ms"],
  [row("fleet", times.get("fleet") ?? []), row("settings", times.get("settings") ?? []), row("all", all)],
)}

${errorText}. Console CPU under the mixed load: ${(cpu * 100).toFixed(0)} % of one core (median of 1 s samples), ${((cpu * 1000) / (all.length / elapsed)).toFixed(2)} ms per request; the load generator (this process): ${(genShare * 100).toFixed(0)} % of one core.

Each route group alone (${clients} loops, 10 s): console CPU per request answered.

${table(["group", "requests", "req/s", "CPU ms/request", "p99 ms", "errors"], perGroup)}

${table(
  ["console memory", "after start", "idle (after warm-up)", "under load: median / max", "10 s after"],
  [
    [
      "working set MiB",
      mib(started.workingSet),
      mib(idle.workingSet),
      `${mib(median(ws))} / ${mib(Math.max(...ws))}`,
      mib(after.workingSet),
    ],
    ["cgroup usage MiB", mib(started.usage), mib(idle.usage), "", mib(after.usage)],
    ["RSS MiB (secondary)", "", mib(idleRss.now), `peak (VmHWM) ${mib(peakRss)}`, mib(rssAfter)],
  ],
)}${profileText}`;
  if (onPostgres) await dropPostgres();
  return { store, text, bodyBytes: Math.round(median(sizes)) };
}

try {
  await lab.start();
  const runs: StoreRun[] = [];
  for (const store of stores) runs.push(await runStore(store));
  // the host's floor: the same loops against a bare node HTTP server answering a body of the routes' median size
  const bodyBytes = runs[0]?.bodyBytes ?? 0;
  const floor = await httpFloor(clients, 15, bodyBytes);
  record(
    "console-load",
    `${clients} clients (closed loops, one administrator session), ${seconds} s, over 9 routes in turn: fleet (overview, matrix?protocol=tcp, topology, nodes/<one>) and settings (config, users, tokens, rbac/roles, rbac/bindings); lab of ${lab.nodes.length} agents on loopback, Prometheus scraping every 5 s; the console${nodeArgs.length > 0 ? ` (node ${nodeArgs.join(" ")})` : ""} on ${stores.join(", then ")}, each started by the bench as the lab starts it (without the controller's event stream) in a memory cgroup of its own (working set = usage minus inactive file pages). Latency measured in the load generator (this process, on the same 2 cores).

${runs.map((r) => r.text).join("\n\n")}

### The host's floor

The same ${clients} loops for 15 s against a bare node HTTP server in a child process (no framework, no store; a fixed ${bodyBytes}-byte JSON answer, the routes' median size): ${floor.rps.toFixed(0)} req/s, p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms; server ${(floor.serverCpu * 100).toFixed(0)} % of one core (${((floor.serverCpu * 1000) / floor.rps).toFixed(3)} ms CPU per request), load generator ${(floor.generatorCpu * 100).toFixed(0)} %.`,
  );
} finally {
  for (const c of children) c.kill("SIGTERM");
  await lab.stop();
  for (const cg of cgroups) await cg.remove();
  await dropPostgres();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
