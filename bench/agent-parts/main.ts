/**
 * agent-parts: what loading each part of the agent costs before it probes anything. Each part is bundled the way
 * scripts/build.mjs bundles the agent (esbuild, whitespace and syntax minified), loaded by a node started with the
 * agent's shipped flags and environment in a memory cgroup of its own (128 MiB, as the chart), and measured after
 * two full garbage collections and a pause: the cgroup's working set (usage minus inactive file pages) and V8's
 * live heap. A part's figures include a bare node's; "above bare node" is the part's own cost. Parts overlap (the
 * agent's modules include the others), so they are not summed.
 *
 *   npm run bench -- agent-parts [--repeat 3]
 *
 * With agent-footprint's fixed and per-peer figures this says where the agent's working set goes.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import { build } from "esbuild";
import { AGENT_CGROUP_LIMIT } from "../lib/agent-run.ts";
import { MemoryCgroup, mib } from "../lib/cgroup.ts";
import { median, record, table } from "../lib/report.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Beside the agent bundle, so the vendored @svc/native (apps/agent/dist/node_modules) resolves as in the image. */
const WORK_DIR = join(ROOT, "apps/agent/dist/.bench-parts");

interface Part {
  name: string;
  /** the entry's body: imports (absolute paths) and what keeps them alive */
  source: string;
}

const src = (p: string): string => JSON.stringify(join(ROOT, p));

const PARTS: readonly Part[] = [
  { name: "bare node", source: "" },
  { name: "logger (pino)", source: `import pino from "pino";\nglobalThis.keep = pino({ level: "info" });` },
  {
    name: "configuration (zod schema, yaml) + default config",
    source: `import { defaultConfig } from ${src("packages/core/src/config/load.ts")};\nglobalThis.keep = defaultConfig("node-a");`,
  },
  {
    name: "gRPC (@grpc/grpc-js, code generated from svc.proto)",
    source: `import * as p from ${src("packages/protocol/src/index.ts")};\nglobalThis.keep = p;`,
  },
  {
    name: "@svc/core (config, logging, heap policy...)",
    source: `import * as c from ${src("packages/core/src/index.ts")};\nglobalThis.keep = c;`,
  },
  {
    name: "every agent module (apps/agent/src/main.ts), not started",
    source: `import * as a from ${src("apps/agent/src/main.ts")};\nglobalThis.keep = a;`,
  },
];

/** After the imports: settle, report the live heap on stdout, stay alive until killed (the parent reads the cgroup). */
const FOOTER = `
globalThis.gc(); globalThis.gc();
setTimeout(() => {
  globalThis.gc();
  process.stdout.write(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed }) + "\\n");
  setInterval(() => {}, 1000);
}, 1500);
`;

const BANNER = [
  'import { createRequire as __svcRequire } from "node:module";',
  'import { fileURLToPath as __svcPath } from "node:url";',
  'import { dirname as __svcDir } from "node:path";',
  "const require = __svcRequire(import.meta.url);",
  "const __filename = __svcPath(import.meta.url);",
  "const __dirname = __svcDir(__filename);",
].join("\n");

async function bundle(part: Part, i: number): Promise<{ file: string; bytes: number }> {
  const entry = join(WORK_DIR, `part-${i}.ts`);
  const file = join(WORK_DIR, `part-${i}.mjs`);
  writeFileSync(entry, `${part.source}\n`);
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
    banner: { js: BANNER },
    footer: { js: FOOTER },
  });
  return { file, bytes: statSync(file).size };
}

interface Sample {
  workingSet: number;
  anon: number;
  heapUsed: number;
}

/** One load of a bundle in a fresh cgroup: the figures once it has settled. */
async function measure(file: string): Promise<Sample> {
  const cg = MemoryCgroup.open("parts", AGENT_CGROUP_LIMIT);
  if (typeof cg === "string") throw new Error(`agent-parts needs a memory cgroup: ${cg} (run as root)`);
  try {
    const child = cg.spawn(process.execPath, [...AGENT_NODE_FLAGS, "--expose-gc", file], {
      env: { ...process.env, ...AGENT_ENV },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf("\n");
        if (nl >= 0) resolve(out.slice(0, nl));
      });
      child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before reporting`)));
    });
    const { heapUsed } = JSON.parse(line) as { heapUsed: number };
    const m = cg.memory();
    return { workingSet: m.workingSet, anon: m.anon, heapUsed };
  } finally {
    await cg.remove();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { repeat: { type: "string", default: "3" } } });
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error("--repeat: 1 to 20");
  rmSync(WORK_DIR, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  try {
    const rows: { part: Part; bytes: number; ws: number; anon: number; heap: number }[] = [];
    for (const [i, part] of PARTS.entries()) {
      const { file, bytes } = await bundle(part, i);
      const samples: Sample[] = [];
      for (let r = 0; r < repeat; r++) samples.push(await measure(file));
      const row = {
        part,
        bytes,
        ws: median(samples.map((s) => s.workingSet)),
        anon: median(samples.map((s) => s.anon)),
        heap: median(samples.map((s) => s.heapUsed)),
      };
      rows.push(row);
      console.error(`agent-parts: ${part.name}: working set ${mib(row.ws)} MiB, heap ${mib(row.heap)} MiB`);
    }
    const bare = rows[0] as (typeof rows)[number];
    const body = [
      `\`\`\`sh\nnpm run bench -- agent-parts${repeat === 3 ? "" : ` --repeat ${repeat}`}\n\`\`\``,
      `Each part bundled as the agent is (esbuild, minified whitespace and syntax), loaded by node with the agent's shipped flags and environment (${[...AGENT_NODE_FLAGS, ...Object.entries(AGENT_ENV).map(([k, v]) => `${k}=${v}`)].join(" ")}) in a memory cgroup of its own (limit ${mib(AGENT_CGROUP_LIMIT)} MiB), measured after full garbage collections; medians of ${repeat} loads. Parts overlap (the agent's modules include the others). Nothing is started: no sockets, no timers, no peers.`,
      table(
        [
          "part",
          "bundle KiB",
          "working set MiB",
          "above bare node MiB",
          "anon MiB",
          "V8 live heap MiB",
          "heap above bare node MiB",
        ],
        rows.map((r) => [
          r.part.name,
          (r.bytes / 1024).toFixed(0),
          mib(r.ws),
          r === bare ? "" : mib(r.ws - bare.ws),
          mib(r.anon),
          mib(r.heap),
          r === bare ? "" : mib(r.heap - bare.heap),
        ]),
      ),
    ].join("\n\n");
    record("agent-parts", body);
  } finally {
    rmSync(WORK_DIR, { recursive: true, force: true });
  }
}

await main();
