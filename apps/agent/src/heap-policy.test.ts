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
  // a heap cap replaces the heap-sizing flags only
  assert.deepEqual(applyAgentHeapPolicy(["--max-old-space-size=200"]), ["--no-opt"]);
  assert.deepEqual(
    applyAgentHeapPolicy(["--semi-space-growth-factor=2"]),
    AGENT_HEAP_FLAGS.filter((f) => !f.startsWith("--semi-space")),
  );
  // either polarity of a flag, with dashes or underscores, is the operator's
  for (const given of ["--opt", "--no_opt", "--no-opt"]) {
    assert.ok(!applyAgentHeapPolicy([given]).includes("--no-opt"), given);
  }
});
