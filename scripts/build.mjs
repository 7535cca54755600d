#!/usr/bin/env node
// Bundles the agent, the controller and the console (esbuild): apps/<name>/dist/<name>.mjs, plain JavaScript that
// runs without the TypeScript loader (tsx is a dev dependency: `npm ci --omit=dev` + these bundles runs all
// three). Packages with native code or WebAssembly stay outside the bundle and are copied into
// apps/<name>/dist/node_modules, so a bundle directory runs on its own (the container images copy only it). The
// console's web app is built into apps/console/dist/web by `npm run build` (vite, after this script).
//
// usage: node scripts/build.mjs [--out DIR] [agent|controller|console ...]
//   --out DIR   build into DIR/<name>/dist instead of apps/<name>/dist (tests build into a temporary directory; either
//               directory is a build context for deploy/Containerfile)
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { BUNDLES, bundleFile, ROOT } from "./bundles.mjs";

const { values, positionals } = parseArgs({ options: { out: { type: "string" } }, allowPositionals: true });
const wanted = positionals.length > 0 ? positionals : BUNDLES.map((b) => b.name);
for (const w of wanted) {
  if (!BUNDLES.some((b) => b.name === w)) throw new Error(`build: unknown bundle "${w}"`);
}

/**
 * The installed directory of package `name` (workspace links resolved): node_modules of `from` or of a directory
 * above it, as node resolves it (a package's package.json need not be in its "exports"), or undefined.
 */
function packageDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Copies package `name` (and the optional platform packages it loads, e.g. @node-rs/argon2-linux-x64-gnu). */
function vendor(name, appDir, outDir) {
  const src = packageDir(name, appDir);
  if (!src) throw new Error(`build: ${name} is not installed (npm ci)`);
  const dest = join(outDir, "node_modules", name);
  mkdirSync(dirname(dest), { recursive: true });
  if (name === "@svc/native") {
    // the addon and the package.json it is found by: not its C sources or build tree
    mkdirSync(join(dest, "build/Release"), { recursive: true });
    cpSync(join(src, "package.json"), join(dest, "package.json"));
    cpSync(join(src, "build/Release/svc_native.node"), join(dest, "build/Release/svc_native.node"));
    return;
  }
  cpSync(src, dest, { recursive: true, dereference: true });
  const pkg = JSON.parse(readFileSync(join(src, "package.json"), "utf8"));
  for (const opt of Object.keys(pkg.optionalDependencies ?? {})) {
    const dir = packageDir(opt, src);
    if (dir) cpSync(dir, join(outDir, "node_modules", opt), { recursive: true, dereference: true });
  }
}

for (const b of BUNDLES.filter((x) => wanted.includes(x.name))) {
  const started = performance.now();
  const outDir = values.out ? join(values.out, b.name, "dist") : join(ROOT, b.dir);
  const outfile = bundleFile(outDir, b.name);
  await build({
    entryPoints: [join(ROOT, b.entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    external: b.external,
    // Whitespace and syntax minification shrinks the source text V8 keeps in the heap for the process's lifetime
    // (agent: 2.4 -> 1.7 MB on disk; 5.4 -> 1.9 MiB of large-object space when idle). Identifiers are not renamed,
    // so stack traces and error names read as in the sources (keepNames is deliberately off: it wraps every
    // closure created in hot paths in a __name() call); the linked source map maps lines.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
    // CommonJS dependencies inside an ES module bundle need require, __filename and __dirname.
    banner: {
      js: [
        'import { createRequire as __svcRequire } from "node:module";',
        'import { fileURLToPath as __svcPath } from "node:url";',
        'import { dirname as __svcDir } from "node:path";',
        "const require = __svcRequire(import.meta.url);",
        "const __filename = __svcPath(import.meta.url);",
        "const __dirname = __svcDir(__filename);",
      ].join("\n"),
    },
  });
  for (const name of b.vendor) vendor(name, join(ROOT, dirname(b.dir)), outDir);
  console.log(`build: ${outfile} in ${Math.round(performance.now() - started)} ms`);
}
