/**
 * Generation of src/generated/ from proto/svc.proto (`npm run gen:proto`; generated.test.ts checks the committed
 * output against a fresh run). Dev tooling: not exported from the package index.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: buf.gen.yaml's paths (proto input, local plugin, output) are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Where the generated code lives, relative to the repository root. */
export const GENERATED_DIR = "packages/protocol/src/generated";

/** Runs the repo's buf binary from the repository root; throws with buf's stderr on failure. */
export function buf(args: string[]): Buffer {
  return execFileSync(join(REPO_ROOT, "node_modules/.bin/buf"), args, {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Files under `dir`, relative to it, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

// ts-proto's forceLong=number throws when a 64-bit value is beyond 2^53 on decode. Our nanosecond timestamps
// (TaskResult/Event.timestamp_unix_ns, ~1.8e18) always are: make the conversion total and lossy, as
// @grpc/proto-loader's `longs: Number` was (a double keeps ~256 ns of precision there).
const STRICT_LONG =
  /( {2}const num = globalThis\.Number\(int64\.toString\(\)\);\n)( {2}if \(num > [\s\S]*?\n {2}}\n {2}if \(num < [\s\S]*?\n {2}}\n)/;

function lossyLongs(text: string, file: string): string {
  if (!text.includes("function longToNumber(")) return text;
  if (!STRICT_LONG.test(text)) throw new Error(`${file}: longToNumber no longer has the expected shape`);
  return text.replace(STRICT_LONG, "$1");
}

/**
 * Generates the code for svc.proto under `outRoot` (the repository root itself by default, i.e. in place; the
 * output then is `<outRoot>/packages/protocol/src/generated`). Returns the generated files, relative to that.
 */
export function generateProto(outRoot: string = REPO_ROOT): string[] {
  buf(["generate", "--template", "packages/protocol/buf.gen.yaml", "-o", outRoot]);
  const dir = join(outRoot, GENERATED_DIR);
  const files = listFiles(dir);
  for (const f of files) {
    if (!f.endsWith(".ts")) continue;
    const path = join(dir, f);
    const text = readFileSync(path, "utf8");
    const patched = lossyLongs(text, f);
    if (patched !== text) writeFileSync(path, patched);
  }
  return files;
}
