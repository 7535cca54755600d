/**
 * Layering (issue 24): arrows run from apps to packages, never back. No source file under packages/ imports an app
 * (by its package name or by a relative path into apps/), and no package's package.json depends on one. (The lab
 * starts the `svc` command as a process by its path; that is a program it runs, not a module it imports.)
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

/** The specifiers of `file` (its text `text`) that reach an app. */
export function appImports(file: string, text: string): string[] {
  return specifiers(text).filter((s) => {
    const pkg = s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : (s.split("/")[0] ?? "");
    if (APP_NAMES.has(pkg)) return true;
    if (!s.startsWith(".")) return false;
    return !relative(join(ROOT, "apps"), resolve(dirname(file), s)).startsWith("..");
  });
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
