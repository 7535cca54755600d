/**
 * A production install runs the three binaries from their bundles: a copy of this tree (the files git knows),
 * `npm ci --omit=dev` (from npm's cache, --offline: no dev dependencies, so no tsx), the bundles built by
 * scripts/build.mjs (and the web app by vite) copied in, then `svc controller`, two `svc agent`s and `svc console`
 * started from that copy. Each says it runs its bundle; the agents probe each other (tcp and udp results "success" both
 * ways); the console answers its API and serves the web app from its bundle directory.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePorts } from "@svc/lab";
import { stringify } from "yaml";
import { BUNDLES } from "../../scripts/bundles.mjs";
import { FAST_CHECKERS, SvcProcess } from "../helpers/svc-process.ts";

const ROOT = join(import.meta.dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "svc-bundles-"));
const tree = join(work, "tree");
const out = join(work, "bundles");
const procs: SvcProcess[] = [];

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(() => {
  // the working tree's tracked and new files (not ignored ones: no node_modules, no dist)
  const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT)
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(ROOT, f)));
  for (const f of files) cpSync(join(ROOT, f), join(tree, f));
  run("npm", ["ci", "--omit=dev", "--offline", "--no-audit", "--no-fund"], tree);
  run(process.execPath, [join(ROOT, "scripts/build.mjs"), "--out", out], ROOT);
  run(
    process.execPath,
    [
      join(ROOT, "node_modules/vite/bin/vite.js"),
      "build",
      "--logLevel",
      "warn",
      "--outDir",
      join(out, "console/dist/web"),
    ],
    join(ROOT, "apps/web"),
  );
  for (const b of BUNDLES) cpSync(join(out, b.name, "dist"), join(tree, b.dir), { recursive: true });
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  rmSync(work, { recursive: true, force: true });
});

function start(name: string, args: string[], env: Record<string, string> = {}): SvcProcess {
  // SVC_FROM_SOURCES=0: the switch off, as an operator runs it
  const p = new SvcProcess(
    name,
    args,
    { SVC_FROM_SOURCES: "0", ...env },
    join(work, "run"),
    join(tree, "apps/cli/bin/svc.mjs"),
  );
  procs.push(p);
  p.spawn();
  return p;
}

function config(name: string, body: Record<string, unknown>): string {
  const file = join(work, "run", `${name}.yaml`);
  mkdirSync(join(work, "run"), { recursive: true });
  writeFileSync(file, stringify(body));
  return file;
}

async function okResults(metricsUrl: string, to: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl)).text();
  return ["tcp", "udp"].filter((p) =>
    text
      .split("\n")
      .some(
        (l) =>
          l.startsWith(`svc_${p}_results_total{`) &&
          l.includes(`destination_node="${to}"`) &&
          l.includes('result="success"') &&
          Number(l.split(" ").at(-1)) > 0,
      ),
  );
}

test("npm ci --omit=dev + the bundles run controller, agents and console", { timeout: 600_000 }, async () => {
  assert.ok(!existsSync(join(tree, "node_modules/tsx")), "no dev dependency installed");
  const [cHttp, cGrpc, cMetrics, conHttp, conMetrics] = await freePorts(5);
  const controller = start("controller", [
    "controller",
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
  await controller.waitOk(`http://127.0.0.1:${cHttp}/readyz`);
  const agents: { name: string; metrics: string; proc: SvcProcess }[] = [];
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
    const proc = start(name, ["agent", "--config", file, "--lab-advertise", "127.0.0.1"], {
      SVC_NODE_NAME: name,
      SVC_ZONE: "zone-a",
    });
    agents.push({ name, metrics: `http://127.0.0.1:${metrics}/metrics`, proc });
    await proc.waitOk(`http://127.0.0.1:${http}/readyz`);
  }
  const consoleProc = start("console", [
    "console",
    "--config",
    config("console", {
      httpPort: conHttp,
      metricsPort: conMetrics,
      logLevel: "warn",
      controller: { url: `http://127.0.0.1:${cHttp}` },
    }),
  ]);
  await consoleProc.waitOk(`http://127.0.0.1:${conMetrics}/readyz`);

  for (const p of [controller, consoleProc, ...agents.map((a) => a.proc)]) {
    const bin = p.name.startsWith("node-") ? "agent" : p.name;
    assert.match(
      readFileSync(p.logFile, "utf8"),
      new RegExp(`svc: running the ${bin} bundle .*/apps/${bin}/dist/`),
    );
  }

  // the agents probe each other from their bundles
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [ab, ba] = [
      await okResults(agents[0]!.metrics, "node-b"),
      await okResults(agents[1]!.metrics, "node-a"),
    ];
    if (ab.length === 2 && ba.length === 2) break;
    assert.ok(Date.now() < deadline, `no successful tcp+udp both ways in 60 s: a->b ${ab}, b->a ${ba}`);
    await new Promise((r) => setTimeout(r, 500));
  }

  // the console: its API answers, the web app comes from apps/console/dist/web
  const version = await fetch(`http://127.0.0.1:${conHttp}/api/v1/config`);
  assert.equal(version.status, 200, await version.text());
  const page = await fetch(`http://127.0.0.1:${conHttp}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<div id="root">|svc-auth-mode/);
});

test("without its bundle a binary does not start from sources unasked; a production install has no sources mode", () => {
  const svc = join(tree, "apps/cli/bin/svc.mjs");
  const dist = join(tree, "apps/controller/dist");
  renameSync(dist, `${dist}.off`);
  try {
    const env = { ...process.env, SVC_FROM_SOURCES: "0" };
    const missing = spawnSync(process.execPath, [svc, "controller", "--help"], { encoding: "utf8", env });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /controller\.mjs is not built: run "npm run build", or .*--from-sources/);
    const sources = spawnSync(process.execPath, [svc, "controller", "--from-sources", "--help"], {
      encoding: "utf8",
      env,
    });
    assert.equal(sources.status, 1);
    assert.match(sources.stderr, /needs the dev dependencies/);
  } finally {
    renameSync(`${dist}.off`, dist);
  }
});
