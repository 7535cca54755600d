import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPolicyShrinksOldSpace } from "../../../test/helpers/heap-churn.ts";
import { CONSOLE_HEAP_FLAGS, heapFlagsToApply } from "./heap-policy.ts";

test("the console's policy: the operator's own heap flags win", () => {
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, []), [...CONSOLE_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--heap_growing_percent=40"]), []);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--enable-source-maps"]), [...CONSOLE_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--max-old-space-size=512"]), []);
});

test("applied after start-up, the console's policy keeps old space close to the live heap", () => {
  const policy = new URL("./heap-policy.ts", import.meta.url).href;
  assertPolicyShrinksOldSpace(
    `import { applyHeapPolicy } from ${JSON.stringify(policy)}; applyHeapPolicy();`,
  );
});
