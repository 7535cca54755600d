/**
 * Every route's example request body is valid for its body schema (the OpenAPI document carries them); every POST
 * and PUT with a body has one (test/e2e/lab-examples.test.ts runs them against a fresh `svc lab`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { consoleApiDocument } from "./document.ts";
import { idFrom, idFromName } from "./route.ts";
import { routes } from "./routes.ts";

test("route examples parse with their body schemas and reach the OpenAPI document", () => {
  const doc = consoleApiDocument("test") as unknown as {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>
    >;
  };
  let n = 0;
  for (const r of routes) {
    if (r.example === undefined) continue;
    n++;
    assert.ok(r.body, `${r.name}: an example without a body`);
    const parsed = r.body.safeParse(r.example);
    assert.ok(parsed.success, `${r.name}: ${JSON.stringify(parsed.error?.issues)}`);
    const op = doc.paths[r.path]?.[r.method.toLowerCase()];
    assert.deepEqual(op?.requestBody?.content["application/json"]?.example, r.example, r.name);
  }
  assert.ok(n >= 10, `${n} examples`);
});

test("every POST and PUT with a body has an example; its ids come from examples of earlier routes", () => {
  const missing = routes
    .filter((r) => (r.method === "POST" || r.method === "PUT") && r.body && r.example === undefined)
    .map((r) => r.name);
  assert.deepEqual(missing, [], "routes without an example (test/e2e/lab-examples.test.ts runs them)");
  const names = routes.map((r) => r.name);
  const placeholders = (v: unknown): string[] =>
    Array.isArray(v)
      ? v.flatMap(placeholders)
      : v !== null && typeof v === "object"
        ? Object.values(v).flatMap(placeholders)
        : [idFromName(v)].filter((n) => n !== undefined);
  for (const [i, r] of routes.entries())
    for (const from of placeholders(r.example))
      assert.ok(names.indexOf(from) >= 0 && names.indexOf(from) < i, `${r.name}: ${idFrom(from)}`);
});
