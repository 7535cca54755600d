/**
 * The container images, built and run here: the bundles (scripts/build.mjs, the web app by vite) are the build
 * context of deploy/Containerfile; the base is built from this host's node (scripts/container-base.sh, no registry
 * is reachable); Debian buildah builds the three images (vfs storage, chroot isolation) and Debian podman + runc
 * runs a controller, two agents and a console from them: host network, read-only root file system, uid 65532, no
 * capabilities. A Prometheus on the host scrapes the agents; the console's matrix API must show every pair healthy
 * on tcp and udp. The agent image opens unprivileged ICMP sockets through ping_group_range alone (no CAP_NET_RAW).
 *
 * Everything lives under one temporary directory (image storage included) and is removed at the end; traffic stays
 * on loopback. Skipped, with the reason, without root, buildah, podman, runc or prometheus.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { FleetMatrix } from "@svc/contract";
import { freePorts, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import { stringify } from "yaml";
import { needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";
import { FAST_CHECKERS } from "../helpers/svc-process.ts";

const ROOT = join(import.meta.dirname, "../..");
const skip = skipUnless(
  needsRoot(),
  needsBinary("/usr/bin/buildah"),
  needsBinary("/usr/bin/podman"),
  needsBinary("/usr/sbin/runc"),
  needsBinary("/usr/bin/prometheus"),
);
const work = mkdtempSync(join(tmpdir(), "svc-images-"));
const ctx = join(work, "ctx");
const cfg = join(work, "cfg");
const tag = `e2e-${process.pid}`;
const STORAGE = ["--storage-driver", "vfs", "--root", join(work, "storage"), "--runroot", join(work, "run")];
const ENV = { ...process.env, CONTAINERS_CONF: join(work, "containers.conf") };
const BUILDAH = ["buildah", ...STORAGE];
const PODMAN = ["podman", ...STORAGE, "--runtime", "runc", "--cgroup-manager", "cgroupfs"];
const containers: string[] = [];
let prometheus: ManagedProcess | undefined;
const BUNDLE_NAMES = ["agent", "controller", "console"] as const;

function run(argv: string[], opts: { env?: NodeJS.ProcessEnv; allowFail?: boolean } = {}): string {
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd ?? "", args, {
    cwd: ROOT,
    encoding: "utf8",
    env: opts.env ?? ENV,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0 && !opts.allowFail)
    throw new Error(
      `${argv.join(" ")} failed (${r.status}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  return r.stdout;
}

const image = (name: string) => `localhost/svc-${name}:${tag}`;

/** Starts a container from one of the images as the chart runs it: read-only, uid 65532, no capabilities. */
function start(name: string, img: string, args: string[], env: Record<string, string> = {}): string {
  const id = `svc-${tag}-${name}`;
  const envArgs = Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
  run(
    [
      ...PODMAN,
      "run",
      "--detach",
      "--name",
      id,
      "--read-only",
      "--user",
      "65532",
      "--cap-drop",
      "ALL",
    ].concat(["--network", "host", "--volume", `${cfg}:/etc/svc:ro`, ...envArgs, image(img), ...args]),
  );
  containers.push(id);
  return id;
}

function config(name: string, body: Record<string, unknown>): string {
  writeFileSync(join(cfg, `${name}.yaml`), stringify(body), { mode: 0o644 });
  return `/etc/svc/${name}.yaml`;
}

function logs(): string {
  return containers
    .map((c) => `--- ${c}\n${run([...PODMAN, "logs", c], { allowFail: true }).slice(-3000)}`)
    .join("\n");
}

async function waitOk(url: string, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${url} not 200 in ${timeoutMs} ms\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

before(
  () => {
    if (skip.skip) return;
    writeFileSync(join(work, "containers.conf"), "[containers]\ndefault_ulimits = []\n");
    mkdirSync(cfg, { recursive: true });
    chmodSync(cfg, 0o755);
    run([process.execPath, "scripts/build.mjs", "--out", ctx]);
    run(
      [process.execPath, "node_modules/vite/bin/vite.js", "build", "--logLevel", "warn"].concat([
        "--outDir",
        join(ctx, "console/dist/web"),
        "apps/web",
      ]),
    );
    const addons = BUNDLE_NAMES.flatMap((n) => findAddons(join(ctx, n, "dist")));
    run(["bash", "scripts/container-base.sh", image("base"), ...addons], {
      env: { ...ENV, BUILDAH_ARGS: STORAGE.join(" ") },
    });
    for (const target of BUNDLE_NAMES) {
      run(
        [...BUILDAH, "bud", "--isolation", "chroot", "--layers=false", "-f", "deploy/Containerfile"].concat([
          "--target",
          target,
          "--build-arg",
          `BASE=${image("base")}`,
          "-t",
          image(target),
          ctx,
        ]),
      );
    }
  },
  { timeout: 600_000 },
);

after(async () => {
  if (prometheus) await stopProcess(prometheus);
  for (const c of containers) run([...PODMAN, "rm", "--force", "--time", "2", c], { allowFail: true });
  rmSync(work, { recursive: true, force: true });
});

function findAddons(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".node"))
    .map((e) => join(e.parentPath, e.name));
}

test("controller, two agents and console from the images: every pair healthy in the console", {
  ...skip,
  timeout: 300_000,
}, async () => {
  const [cHttp, cGrpc, cMetrics, conHttp, conMetrics, promPort] = await freePorts(6);
  start("controller", "controller", [
    "/app/controller.mjs",
    "--config",
    config("controller", {
      httpPort: cHttp,
      grpcPort: cGrpc,
      metricsPort: cMetrics,
      logLevel: "warn",
      controller: { leaderElection: false },
    }),
    "--allow-loopback-agents",
  ]);
  await waitOk(`http://127.0.0.1:${cHttp}/readyz`, "controller");
  const agentMetrics: string[] = [];
  for (const name of ["node-a", "node-b"]) {
    const [http, metrics, grpc] = await freePorts(3);
    const file = config(name, {
      httpPort: http,
      metricsPort: metrics,
      grpcPort: grpc,
      logLevel: "warn",
      controllerAddress: `127.0.0.1:${cGrpc}`,
      checkers: FAST_CHECKERS,
    });
    // the image's default node flags, then the bundle with its arguments
    const id = start(
      name,
      "agent",
      ["--max-semi-space-size=1", "--heap-growing-percent=25", "--no-opt", "/app/agent.mjs"].concat([
        "--config",
        file,
        "--lab-advertise",
        "127.0.0.1",
      ]),
      { SVC_NODE_NAME: name, SVC_ZONE: "zone-a", SVC_POD_NAME: `svc-agent-${name}` },
    );
    await waitOk(`http://127.0.0.1:${http}/readyz`, name);
    agentMetrics.push(`127.0.0.1:${metrics}`);
    // as the chart runs it: uid 65532, no effective capability, nothing writable but /tmp
    const probe = run([...PODMAN, "exec", id, "/usr/local/bin/node", "-e", PROCESS_REPORT]);
    assert.deepEqual(JSON.parse(probe), { uid: 65532, capEff: "0000000000000000", rootWritable: false });
  }
  mkdirSync(join(work, "prometheus"));
  const started = await startPrometheus({
    binary: "/usr/bin/prometheus",
    dir: join(work, "prometheus"),
    port: promPort ?? 0,
    targets: agentMetrics.map((t) => ({ job: "svc-agent", targets: [t] })),
    intervalSeconds: 2,
  });
  prometheus = started.process;
  start("console", "console", [
    "/app/console.mjs",
    "--config",
    config("console", {
      httpPort: conHttp,
      metricsPort: conMetrics,
      logLevel: "warn",
      console: { controller: { url: `http://127.0.0.1:${cHttp}` }, prometheus: { url: started.url } },
    }),
  ]);
  await waitOk(`http://127.0.0.1:${conMetrics}/readyz`, "console");
  const page = await fetch(`http://127.0.0.1:${conHttp}/`);
  assert.equal(page.status, 200, "the web app from the image");

  const deadline = Date.now() + 120_000;
  let last = "";
  for (;;) {
    const tiers: string[] = [];
    for (const protocol of ["tcp", "udp"]) {
      const res = await fetch(`http://127.0.0.1:${conHttp}/api/v1/fleet/matrix?protocol=${protocol}`);
      const body = res.status === 200 ? ((await res.json()) as FleetMatrix) : undefined;
      for (const [s, d] of [
        ["node-a", "node-b"],
        ["node-b", "node-a"],
      ]) {
        const cell = body?.cells.find((c) => c.source === s && c.destination === d);
        tiers.push(`${protocol} ${s}->${d} ${cell?.tier ?? `none (${res.status})`}`);
      }
    }
    last = tiers.join(", ");
    if (tiers.every((t) => t.endsWith(" healthy"))) break;
    assert.ok(Date.now() < deadline, `not every pair healthy in 120 s: ${last}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
});

/** Printed by node inside a container: its uid, effective capabilities, and whether / is writable. */
const PROCESS_REPORT = `
const fs = require("node:fs");
let rootWritable = true;
try { fs.writeFileSync("/app/probe", "x"); } catch { rootWritable = false; }
const capEff = fs.readFileSync("/proc/self/status", "utf8").match(/CapEff:\\s*(\\w+)/)[1];
console.log(JSON.stringify({ uid: process.getuid(), capEff, rootWritable }));
`;

test("the agent image opens ICMP sockets through ping_group_range, without CAP_NET_RAW", skip, () => {
  const addon = "/app/node_modules/@svc/native/build/Release/svc_native.node";
  const script = `console.log(require(${JSON.stringify(addon)}).icmpDgramAllowed(4))`;
  const base = [
    ...PODMAN,
    "run",
    "--rm",
    "--read-only",
    "--user",
    "65532",
    "--cap-drop",
    "ALL",
    "--network",
    "none",
  ];
  const allowed = run([
    ...base,
    "--sysctl",
    "net.ipv4.ping_group_range=0 2147483647",
    image("agent"),
    "-e",
    script,
  ]);
  assert.equal(allowed.trim(), "true");
  // and the sysctl is what does it: a new network namespace's default range admits no group
  const denied = run([...base, image("agent"), "-e", script]);
  assert.equal(denied.trim(), "false");
});
