/** The console wires one way (main -> server -> routes -> services): no module imports itself back, types included. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return n.endsWith(".ts") && !n.endsWith(".test.ts") ? [resolve(p)] : [];
  });
}

test("apps/console/src has no import cycle", () => {
  const root = new URL(".", import.meta.url).pathname;
  const files = new Set(sources(root));
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const deps = [...text.matchAll(/^(?:import|export)[^;]*?from "(\.[^"]+)";/gms)].map((m) =>
      resolve(dirname(f), m[1] ?? ""),
    );
    edges.set(
      f,
      deps.filter((d) => files.has(d)),
    );
  }
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, "open");
    stack.push(n);
    for (const d of edges.get(n) ?? []) {
      if (state.get(d) === "open")
        cycles.push(
          stack
            .slice(stack.indexOf(d))
            .map((x) => relative(root, x))
            .join(" -> "),
        );
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  assert.deepEqual(cycles, []);
});
