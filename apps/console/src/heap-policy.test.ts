// The policy's effect is measured by bench/console-load (a short churn in a test showed 121 against 131 MiB, inside
// what a loaded machine moves it by); that `svc console` applies it is checked in main.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { heapFlagsToApply } from "@svc/core/heap-policy";
import { CONSOLE_HEAP_FLAGS } from "./heap-policy.ts";

test("the console's policy: the operator's own heap flags win", () => {
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, []), [...CONSOLE_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--heap_growing_percent=40"]), []);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--enable-source-maps"]), [...CONSOLE_HEAP_FLAGS]);
  assert.deepEqual(heapFlagsToApply(CONSOLE_HEAP_FLAGS, ["--max-old-space-size=512"]), []);
});
