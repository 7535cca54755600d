#!/usr/bin/env node
// npm run bench -- <name> [args...]: builds the bundles (scripts/build.mjs), then runs bench/<name>/main.ts with tsx.
// Each benchmark prints a table and appends it, with the machine it ran on, to docs/benchmarks.md.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const [name, ...rest] = process.argv.slice(2);
const available = readdirSync("bench", { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name>\navailable: ${available.join(", ")}`);
  process.exit(1);
}
const entry = `bench/${name}/main.ts`;
if (!existsSync(entry)) {
  console.error(`${entry} missing`);
  process.exit(1);
}
// Benchmarks measure what ships: the bundles `svc agent|controller|console` run, built from the sources as they are
const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);
const res = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", entry, ...rest], {
  stdio: "inherit",
});
process.exit(res.status ?? 1);
