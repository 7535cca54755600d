/** Leaf-level comparison of two configurations, for hot reload. Lists are leaves (compared whole). */
import type { SvcConfig } from "./types.ts";

/** Flattens a config to leaf key path -> value; arrays and scalars are leaves. */
export function leafValues(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      for (const [p, leaf] of leafValues(v, prefix === "" ? k : `${prefix}.${k}`)) out.set(p, leaf);
    }
  } else {
    out.set(prefix, value);
  }
  return out;
}

/** Key paths of the leaves that differ between `a` and `b`, sorted ("checkers.udp.packets", "logLevel"). */
export function diffConfig(a: SvcConfig, b: SvcConfig): string[] {
  const la = leafValues(a);
  const lb = leafValues(b);
  const keys = new Set([...la.keys(), ...lb.keys()]);
  return [...keys].filter((k) => JSON.stringify(la.get(k)) !== JSON.stringify(lb.get(k))).sort();
}
