import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPolicyShrinksHeap } from "../../../test/helpers/heap-churn.ts";
import { CONTROLLER_HEAP_FLAGS, heapFlagsToApply } from "./heap-policy.ts";

test("the operator's own heap flags win over the policy", () => {
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, []), [...CONTROLLER_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--heap-growing-percent=50"]), [
    "--semi-space-growth-factor=1",
  ]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--semi_space_growth_factor=2"]), [
    "--heap-growing-percent=25",
  ]);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--max-old-space-size=256"]), []);
  assert.deepEqual(heapFlagsToApply(CONTROLLER_HEAP_FLAGS, ["--enable-source-maps", ""]), [
    ...CONTROLLER_HEAP_FLAGS,
  ]);
});

test("applied after start-up, the policy keeps the young generation small and old space close to the live heap", () => {
  const policy = new URL("./heap-policy.ts", import.meta.url).href;
  assertPolicyShrinksHeap(`import { applyHeapPolicy } from ${JSON.stringify(policy)}; applyHeapPolicy();`);
});
