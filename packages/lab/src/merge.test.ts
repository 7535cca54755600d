import assert from "node:assert/strict";
import { test } from "node:test";
import { deepMerge } from "./merge.ts";

test("deepMerge: objects merge, everything else replaces, and neither input changes", () => {
  const base = { a: 1, nested: { x: 1, list: [1, 2] }, keep: "k" };
  const over = { a: 2, nested: { y: 2, list: [3] } };
  const out = deepMerge(base, over);
  assert.deepEqual(out, { a: 2, nested: { x: 1, y: 2, list: [3] }, keep: "k" });
  assert.deepEqual(base, { a: 1, nested: { x: 1, list: [1, 2] }, keep: "k" });
  assert.deepEqual(over, { a: 2, nested: { y: 2, list: [3] } });
});

test("deepMerge: a __proto__ key from a parsed file is an own key, never the result's prototype", () => {
  const over = JSON.parse('{"__proto__": {"polluted": true}, "checkers": {"__proto__": {"x": 1}}}') as Record<
    string,
    unknown
  >;
  const out = deepMerge({ checkers: { tcp: { enabled: true } } }, over);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal((out as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, "__proto__")?.value, { polluted: true });
  const checkers = out.checkers as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(checkers), Object.prototype);
  assert.deepEqual(Object.keys(checkers).sort(), ["__proto__", "tcp"]);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});
