// The runner under `npm test` (started by scripts/test.mjs with tsx loaded): node:test's run() over the test files
// in the order given (`node --test a b` would sort them), each in a process of its own, `--concurrency` at once.
// Reports on stdout as `node --test` does (spec on a terminal, tap otherwise); with `--durations FILE`, also writes
// { file: seconds } for the files that ran (the sum of their top-level tests; files relative to the cwd).
//   node --import tsx [--test-timeout=MS] scripts/test-run.mjs [--concurrency N] [--timeout MS] [--durations FILE]
//     [--test-name-pattern P] -- FILE...
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { run } from "node:test";
import { spec, tap } from "node:test/reporters";
import { parseArgs } from "node:util";

const { values, positionals: files } = parseArgs({
  options: {
    concurrency: { type: "string", default: "2" },
    timeout: { type: "string" },
    durations: { type: "string" },
    // given to run(), which hands it to each file's process (the runner's own node options must not hold it: it
    // would filter the files themselves by name)
    "test-name-pattern": { type: "string", multiple: true },
  },
  allowPositionals: true,
});
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`test-run: --concurrency must be a whole number >= 1, got ${values.concurrency}`);
  process.exit(2);
}
const stream = run({
  files,
  concurrency,
  ...(values.timeout ? { timeout: Number(values.timeout) } : {}),
  ...(values["test-name-pattern"] ? { testNamePatterns: values["test-name-pattern"] } : {}),
});

let failed = false;
const byFile = new Map();
const count = (data) => {
  if (data.nesting !== 0) return;
  if (data.file) {
    const key = relative(process.cwd(), data.file);
    byFile.set(key, (byFile.get(key) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  }
};
stream.on("test:pass", count);
stream.on("test:fail", (data) => {
  if (data.nesting === 0) failed = true;
  count(data);
});

const out = stream.compose(process.stdout.isTTY ? new spec() : tap);
out.pipe(process.stdout);
await once(out, "end");
if (values.durations) {
  const rounded = [...byFile].map(([f, s]) => [f, Math.round(s * 10) / 10]);
  writeFileSync(values.durations, `${JSON.stringify(Object.fromEntries(rounded), null, 2)}\n`);
}
process.exitCode = failed ? 1 : 0;
