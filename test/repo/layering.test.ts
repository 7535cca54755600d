/**
 * Layering (issue 24): arrows run from apps to packages, never back. No source file under packages/ imports an app
 * (by its package name or by a relative path into apps/), and no package's package.json depends on one. (The lab
 * starts the `svc` command as a process by its path; that is a program it runs, not a module it imports.)
 *
 * Apps import packages only (issue 37.9): what two apps share is a package (the controller's gRPC client pieces
 * are @svc/controller-client), so no app's code imports another app. Two kinds of file are outside that rule:
 * apps/cli, the `svc` command, whose subcommands are the other apps (it starts them by their entry points), and
 * test code (`*.test.ts` and files under a `testdata/` directory), which runs the real controller or agent as a
 * fixture rather than a stand-in of it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");
const APPS = readdirSync(join(ROOT, "apps")).filter((d) => statSync(join(ROOT, "apps", d)).isDirectory());
const APP_NAMES = new Set(
  APPS.map(
    (d) => (JSON.parse(readFileSync(join(ROOT, "apps", d, "package.json"), "utf8")) as { name: string }).name,
  ),
);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    if (n === "node_modules" || n === "dist" || n.startsWith(".")) return [];
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : /\.(m?[jt]sx?|cjs)$/.test(n) ? [p] : [];
  });
}

/** Module specifiers of `text`: static imports and re-exports, dynamic import(), require(). */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm,
  ))
    if (m[1]) out.push(m[1]);
  return out;
}

/** The app directory (under apps/) that `path` lies in; undefined outside apps/. */
function appDirOf(path: string): string | undefined {
  const rel = relative(join(ROOT, "apps"), path);
  return rel.startsWith("..") ? undefined : rel.split(/[\\/]/)[0];
}

/** The directory of each app, by its package name. */
const APP_DIR_BY_NAME = new Map(
  APPS.map((d) => [
    (JSON.parse(readFileSync(join(ROOT, "apps", d, "package.json"), "utf8")) as { name: string }).name,
    d,
  ]),
);

/**
 * The specifiers of `file` (its text `text`) that reach an app other than the one `file` belongs to (for a file
 * under packages/: any app).
 */
export function appImports(file: string, text: string): string[] {
  const own = appDirOf(file);
  return specifiers(text).filter((s) => {
    const pkg = s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : (s.split("/")[0] ?? "");
    const named = APP_DIR_BY_NAME.get(pkg);
    if (named !== undefined) return named !== own;
    if (!s.startsWith(".")) return false;
    const target = appDirOf(resolve(dirname(file), s));
    return target !== undefined && target !== own;
  });
}

/** Test code: a test file or a fixture under a testdata/ directory. */
function isTestCode(file: string): boolean {
  return /\.test\.[cm]?[jt]sx?$/.test(file) || file.split(/[\\/]/).includes("testdata");
}

test("the checker sees each way a module can be reached", () => {
  const f = join(ROOT, "packages/core/src/x.ts");
  const text = [
    'import { a } from "@svc/agent";',
    'export * from "@svc/console/src/server.ts";',
    'const c = await import("../../../apps/controller/src/main.ts");',
    'const w = require("@svc/web");',
    'import "../../../apps/cli/bin/svc.mjs";',
    'import { ok } from "@svc/protocol";',
    'import { alsoOk } from "../../lab/src/lab.ts";',
  ].join("\n");
  assert.deepEqual(appImports(f, text), [
    "@svc/agent",
    "@svc/console/src/server.ts",
    "../../../apps/controller/src/main.ts",
    "@svc/web",
    "../../../apps/cli/bin/svc.mjs",
  ]);
});

test("an app's own modules are not another app's", () => {
  const f = join(ROOT, "apps/console/src/events/ingester.ts");
  const text = [
    'import { x } from "../live/feed-sink.ts";',
    'import { y } from "@svc/console/recording-rules";',
    'import { ReconnectingStream } from "@svc/agent/reconnecting-stream";',
    'import { z } from "../../../agent/src/grpc/controller-channel.ts";',
    'import { ok } from "@svc/controller-client";',
  ].join("\n");
  assert.deepEqual(appImports(f, text), [
    "@svc/agent/reconnecting-stream",
    "../../../agent/src/grpc/controller-channel.ts",
  ]);
  assert.ok(isTestCode(join(ROOT, "apps/console/src/events/ingest.test.ts")));
  assert.ok(isTestCode(join(ROOT, "apps/console/src/runs/testdata/task-agent.ts")));
  assert.ok(!isTestCode(f));
});

test("no app imports another app (apps/cli, the svc command, starts them; test code may run them)", () => {
  const offenders = APPS.filter((d) => d !== "cli").flatMap((d) =>
    sources(join(ROOT, "apps", d))
      .filter((f) => !isTestCode(f))
      .flatMap((f) => appImports(f, readFileSync(f, "utf8")).map((s) => `${relative(ROOT, f)}: ${s}`)),
  );
  assert.deepEqual(offenders, []);
});

test("no package source imports an app", () => {
  const offenders = sources(join(ROOT, "packages")).flatMap((f) =>
    appImports(f, readFileSync(f, "utf8")).map((s) => `${relative(ROOT, f)}: ${s}`),
  );
  assert.deepEqual(offenders, []);
});

test("no package depends on an app in its package.json", () => {
  const offenders: string[] = [];
  for (const d of readdirSync(join(ROOT, "packages"))) {
    const file = join(ROOT, "packages", d, "package.json");
    if (!statSync(join(ROOT, "packages", d)).isDirectory()) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"])
      for (const name of Object.keys(pkg[field] ?? {}))
        if (APP_NAMES.has(name)) offenders.push(`${d}: ${name}`);
  }
  assert.deepEqual(offenders, []);
});
