import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPolicyShrinksHeap } from "../../../test/helpers/heap-churn.ts";
import { AGENT_HEAP_FLAGS, applyAgentHeapPolicy } from "./heap-policy.ts";

test("the agent's policy keeps the young generation at its initial size and old space close to the live heap", () => {
  const policy = new URL("./heap-policy.ts", import.meta.url).href;
  assertPolicyShrinksHeap(
    `import { applyAgentHeapPolicy } from ${JSON.stringify(policy)}; applyAgentHeapPolicy();`,
  );
});

test("an operator's heap cap or own flag leaves the agent's policy flag alone", () => {
  assert.deepEqual(applyAgentHeapPolicy(["--max-old-space-size=200"]), []);
  assert.deepEqual(
    AGENT_HEAP_FLAGS.filter((f) => f.startsWith("--heap-growing")),
    applyAgentHeapPolicy(["--semi-space-growth-factor=2"]),
  );
});
