#!/usr/bin/env node
// Runs every *.test.ts under apps/, packages/ and test/ with node's test runner (tsx loader).
// Usage: npm test [-- <path filter> ...] [-- --unit | --integration] [-- --list] [-- --record-durations]
//   e.g. npm test -- apps/agent; npm test -- --unit
// Files start longest first, by the durations in test/durations.json (files not in it first of all: they may be
// long), so the long end-to-end files do not start last and leave one worker idle at the end of the run.
// --record-durations rewrites that file from this run. The files run through scripts/test-run.mjs.
// --unit: only unit tests, files that start no child process and need no root, network namespace, external
// binary or browser (servers in-process on 127.0.0.1 are allowed); --integration: the rest. A file is an
// integration test when it lives under test/e2e/, or when it, or a file it imports by a relative path (followed
// through the repository's own files), uses one of INTEGRATION_MARKS. --list prints the selection and exits.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** What makes a file an integration test: child processes, root, namespaces, binaries, browsers, the lab. */
export const INTEGRATION_MARKS = [
  "node:child_process",
  "needsRoot(",
  "needsBinary(",
  "@svc/lab",
  "playwright",
];

const roots = ["packages", "apps", "test"];
const args = process.argv.slice(2);
const unit = args.includes("--unit");
const integration = args.includes("--integration");
const list = args.includes("--list");
const record = args.includes("--record-durations");
const own = new Set(["--unit", "--integration", "--list", "--record-durations"]);
const filters = args.filter((a) => !a.startsWith("--"));
const namePattern = (a) => a.startsWith("--test-name-pattern=");
const passthrough = args.filter((a) => a.startsWith("--") && !own.has(a) && !namePattern(a));
if (unit && integration) {
  console.error("--unit and --integration exclude each other");
  process.exit(1);
}
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

const marked = new Map();
/** Whether a source file, or one it imports by a relative path, carries an integration mark. */
function isIntegrationSource(file, seen = new Set()) {
  if (marked.has(file)) return marked.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  let hit = INTEGRATION_MARKS.some((m) => text.includes(m));
  if (!hit) {
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = resolve(dirname(file), m[1]);
      const candidates = [target, `${target}.ts`, join(target, "index.ts")];
      const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
      if (found && isIntegrationSource(found, seen)) {
        hit = true;
        break;
      }
    }
  }
  marked.set(file, hit);
  return hit;
}
const isIntegration = (f) => f.split("/").includes("e2e") || isIntegrationSource(resolve(f));

const selected = files
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => (unit ? !isIntegration(f) : integration ? isIntegration(f) : true))
  .sort();
const DURATIONS = "test/durations.json";
/** Seconds per file from an earlier run; a missing or unreadable file means alphabetical order. */
function readDurations() {
  try {
    const d = JSON.parse(readFileSync(DURATIONS, "utf8"));
    return new Map(Object.entries(d).filter(([, s]) => typeof s === "number"));
  } catch {
    return new Map();
  }
}
const durations = readDurations();
const expected = (f) => durations.get(f) ?? Number.POSITIVE_INFINITY;
selected.sort((a, b) => expected(b) - expected(a) || (a < b ? -1 : 1));
if (list) {
  for (const f of selected) console.log(f);
  process.exit(0);
}
if (selected.length === 0) {
  console.error("no test files matched", filters, unit ? "(--unit)" : integration ? "(--integration)" : "");
  process.exit(1);
}
const recorded = join(tmpdir(), `svc-test-durations-${process.pid}.json`);
// three at once: the lab and browser files spend most of their time waiting (9.0 min against 11.2 at two, 2 cores)
const concurrency = process.env.SVC_TEST_CONCURRENCY ?? "3";
const res = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    // each test's own limit, in every file's process; the runner's --timeout bounds each file
    "--test-timeout=300000",
    ...passthrough,
    "scripts/test-run.mjs",
    `--concurrency=${concurrency}`,
    ...args.filter(namePattern),
    "--timeout=300000",
    ...(record ? [`--durations=${recorded}`] : []),
    "--",
    ...selected,
  ],
  // `svc agent|controller|console` run their bundles unless told otherwise: tests run the sources they test
  { stdio: "inherit", env: { ...process.env, SVC_FROM_SOURCES: process.env.SVC_FROM_SOURCES ?? "1" } },
);
if (record) {
  // this run's files replace their old figures; the others keep theirs (a filtered run records only its files)
  try {
    const merged = new Map([...durations, ...Object.entries(JSON.parse(readFileSync(recorded, "utf8")))]);
    const sorted = [...merged]
      // a test declared in a shared helper is reported under the helper's name, not a test file's: dropped
      .filter(([f]) => f.endsWith(".test.ts") && existsSync(f))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    writeFileSync(DURATIONS, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
    console.error(`test: durations of ${sorted.length} files in ${DURATIONS}`);
  } catch (err) {
    console.error(`test: durations not recorded: ${err.message}`);
  } finally {
    rmSync(recorded, { force: true });
  }
}
process.exit(res.status ?? 1);
