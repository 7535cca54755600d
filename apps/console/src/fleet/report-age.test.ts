import assert from "node:assert/strict";
import { test } from "node:test";
import { reportStaleAfter, STALE_MIN_S } from "./report-age.ts";

test("a node's report is stale after three of the fleet's intervals, never sooner than 10 s", () => {
  assert.equal(reportStaleAfter(5), 15);
  assert.equal(reportStaleAfter(30), 90);
  assert.equal(reportStaleAfter(1), STALE_MIN_S);
});

test("without an interval (no agent_info, the query failed, nonsense) there is no bound of the console's own", () => {
  for (const v of [undefined, Number.NaN, Number.POSITIVE_INFINITY, 0, -5])
    assert.equal(reportStaleAfter(v), Number.POSITIVE_INFINITY, String(v));
});
