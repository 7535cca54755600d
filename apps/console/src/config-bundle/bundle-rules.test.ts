/**
 * The pure rules of the configuration bundle: an exported target address reads back as the same target, equality
 * ignores jsonb's key order, and the hostile-input walk (prototype keys, unstorable text, depth) names the first
 * problem with its path.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BundleCheck, bundleValueProblem, CONFIG_BUNDLE_MAX_DEPTH, ConfigBundleInput } from "@svc/contract";
import { parseTargetAddress } from "../checks/target-address.ts";
import { sameJson } from "./compare.ts";
import { targetAddressText } from "./export.ts";

test("an exported address parses back to the stored kind, address and port", () => {
  for (const raw of [
    "example.com",
    "example.com:8443",
    "10.0.0.1:53",
    "[2001:db8::1]:443",
    "2001:db8::2",
    "https://x.example:8443/health",
  ]) {
    const a = parseTargetAddress(raw);
    assert.ok(!("error" in a), raw);
    const back = parseTargetAddress(targetAddressText(a));
    assert.deepEqual(back, a, raw);
  }
});

test("sameJson ignores object key order, not array order", () => {
  assert.equal(sameJson({ a: 1, b: { c: [1, 2], d: "x" } }, { b: { d: "x", c: [1, 2] }, a: 1 }), true);
  assert.equal(sameJson({ a: [1, 2] }, { a: [2, 1] }), false);
  assert.equal(sameJson({ a: 1 }, { a: 1, b: undefined }), true);
});

test("bundleValueProblem: prototype keys, NUL, lone surrogates, depth; names the path", () => {
  const proto = JSON.parse('{"targets":[{"__proto__":{"x":1}}]}') as unknown;
  assert.match(bundleValueProblem(proto) ?? "", /bundle\.targets\[0\]: key "__proto__"/);
  assert.match(bundleValueProblem({ a: { constructor: 1 } }) ?? "", /"constructor"/);
  assert.match(bundleValueProblem({ a: ["ok", "b\u0000"] }) ?? "", /bundle\.a\[1\]: text with NUL/);
  assert.match(bundleValueProblem({ "k\uD800": 1 }) ?? "", /a key with NUL/);
  let deep: unknown = 1;
  for (let i = 0; i < CONFIG_BUNDLE_MAX_DEPTH; i++) deep = [deep];
  assert.equal(bundleValueProblem(deep), undefined, "16 levels of nesting are fine");
  assert.match(bundleValueProblem([deep]) ?? "", /deeper than 16/);
  assert.equal(bundleValueProblem({ toString: "fine", hasOwnProperty: ["fine", "😀"] }), undefined);
});

test("the import schema: format and version, strict keys, items judged later", () => {
  const head = { format: "svc-config-bundle", version: 1 };
  assert.equal(ConfigBundleInput.safeParse({ ...head, targets: [1, "x", null] }).success, true);
  assert.equal(ConfigBundleInput.safeParse({ ...head, version: 2 }).success, false);
  assert.equal(ConfigBundleInput.safeParse({ ...head, extra: [] }).success, false);
  assert.equal(ConfigBundleInput.safeParse({ ...head, omitted: ["nope"] }).success, false);
  // an item is judged by its section's own schema: the route's body rules (params bound, strict keys)
  assert.equal(BundleCheck.safeParse({ name: "c", target: "t", type: "tcp" }).success, true);
  assert.equal(BundleCheck.safeParse({ name: "c", target: "t", type: "tcp", targetId: "x" }).success, false);
  assert.equal(BundleCheck.safeParse({ name: "c", target: "t", type: "tcp", plane: "host" }).success, false);
});
