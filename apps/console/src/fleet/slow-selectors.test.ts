import assert from "node:assert/strict";
import { test } from "node:test";
import { slowSelectors } from "./figures.ts";

const sample = (source: string, destination: string) => ({
  metric: { source_node: source, destination_node: destination },
  value: 1,
  t: 0,
});

test("the p95 read names exactly the slow pairs: one matcher per source, its slow destinations as an anchored regex", () => {
  assert.deepEqual(slowSelectors([sample("a", "b"), sample("c", "d.e"), sample("a", "f")]), [
    'source_node="a",destination_node=~"b|f"',
    'source_node="c",destination_node=~"d\\\\.e"',
  ]);
});
