/**
 * Summaries of V8's profiling outputs for benchmark notes: where a process's CPU time goes (a .cpuprofile from
 * `node --cpu-prof`) and what its heap holds (a .heapsnapshot, e.g. from `--heapsnapshot-signal`).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * Self time by function (top `top`, % of the non-idle samples), GC and "(program)" (V8 and native code outside
 * JavaScript) included, over the last `spanMs` of the profile before it ended or a heap snapshot began.
 */
export function summarizeCpuProfile(
  file: string,
  spanMs: number,
  top = 15,
): { rows: [string, string][]; busyMs: number; spanMs: number } {
  const p = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const keyOf = new Map<number, string>();
  for (const n of p.nodes) {
    const { functionName, url, lineNumber } = n.callFrame;
    const where = url === "" ? "" : ` ${basename(url)}:${lineNumber + 1}`;
    keyOf.set(n.id, `${functionName || "(anonymous)"}${where}`);
  }
  // the span ends at the profile's end or at a heap snapshot's start, whichever is first
  const at: number[] = [];
  let t = 0;
  let endUs = Number.POSITIVE_INFINITY;
  for (const [i, id] of p.samples.entries()) {
    t += p.timeDeltas[i] ?? 0;
    at.push(t);
    if (endUs === Number.POSITIVE_INFINITY && (keyOf.get(id) ?? "").startsWith("writeHeapSnapshot"))
      endUs = t;
  }
  if (endUs === Number.POSITIVE_INFINITY) endUs = t;
  const fromUs = endUs - spanMs * 1000;
  const hits = new Map<string, number>();
  let busy = 0;
  let busyUs = 0;
  for (const [i, id] of p.samples.entries()) {
    const dt = p.timeDeltas[i] ?? 0;
    const ts = at[i] ?? 0;
    if (ts < fromUs || ts >= endUs) continue;
    const key = keyOf.get(id) ?? "?";
    if (key === "(idle)") continue;
    busy++;
    busyUs += p.timeDeltas[i + 1] ?? dt;
    hits.set(key, (hits.get(key) ?? 0) + 1);
  }
  const rows = [...hits.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, h]): [string, string] => [k, `${((100 * h) / Math.max(1, busy)).toFixed(1)} %`]);
  return { rows, busyMs: busyUs / 1000, spanMs };
}

/** Self size by node type, and by constructor/name within objects, closures, code and strings (top `top`). */
export function summarizeHeapSnapshot(
  file: string,
  top = 15,
): { totalBytes: number; byType: [string, number][]; byName: [string, number, number][] } {
  const s = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const types = s.snapshot.meta.node_types[0];
  const byType = new Map<string, number>();
  const byName = new Map<string, [number, number]>();
  let totalBytes = 0;
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt] ?? 0] ?? "?";
    const size = s.nodes[i + sizeAt] ?? 0;
    totalBytes += size;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const raw = s.strings[s.nodes[i + nameAt] ?? 0] ?? "";
    const name =
      type === "string" || type === "concatenated string" ? "(strings)" : `${type}: ${raw.slice(0, 60)}`;
    const e = byName.get(name) ?? [0, 0];
    e[0] += size;
    e[1] += 1;
    byName.set(name, e);
  }
  return {
    totalBytes,
    byType: [...byType.entries()].sort((a, b) => b[1] - a[1]),
    byName: [...byName.entries()]
      .sort((a, b) => b[1][0] - a[1][0])
      .slice(0, top)
      .map(([k, [size, count]]) => [k, size, count]),
  };
}
