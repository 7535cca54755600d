/** Every route's example request body is valid for its body schema (the OpenAPI document carries them). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { consoleApiDocument } from "./document.ts";
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
