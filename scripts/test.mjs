#!/usr/bin/env node
// Runs every *.test.ts under apps/, packages/ and test/ with node's test runner (tsx loader).
// Usage: npm test [-- <path filter> ...]   e.g. npm test -- apps/agent
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const roots = ["packages", "apps", "test"];
const filters = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const passthrough = process.argv.slice(2).filter((a) => a.startsWith("--"));
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "build" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith(".test.ts")) files.push(p);
  }
}
for (const r of roots) {
  try {
    walk(r);
  } catch {
    // root absent
  }
}
const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (selected.length === 0) {
  console.error("no test files matched", filters);
  process.exit(1);
}
const res = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=300000", ...passthrough, ...selected],
  // `svc agent|controller|console` run their bundles unless told otherwise: tests run the sources they test
  { stdio: "inherit", env: { ...process.env, SVC_FROM_SOURCES: process.env.SVC_FROM_SOURCES ?? "1" } },
);
process.exit(res.status ?? 1);
