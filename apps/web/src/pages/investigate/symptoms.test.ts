import assert from "node:assert/strict";
import { test } from "node:test";
import type { Investigation } from "./params.ts";
import { isSymptom } from "./symptoms.ts";
import type { TimelineEntry } from "./timeline.ts";

const pair: Investigation = {
  kind: "pair",
  scope: "node-1->node-2",
  from: "2026-11-28T00:00:00Z",
  to: "2026-11-28T01:00:00Z",
};
const row = (kind: TimelineEntry["kind"], detail: string): TimelineEntry => ({
  timestamp: "2026-11-28T00:30:00Z",
  kind,
  severity: "error",
  title: "t",
  detail,
  reference: "r",
});

test("the pair's own failed checks and runs are its symptoms; writes and changes elsewhere are not", () => {
  assert.equal(isSymptom(row("fleet-event", "CheckObserved · node-1->node-2"), pair), true);
  assert.equal(
    isSymptom(row("fleet-event", "CheckObserved · node-2->node-1"), pair),
    false,
    "the reverse pair",
  );
  assert.equal(
    isSymptom(row("fleet-event", "TopologyChanged · node-2"), pair),
    false,
    "a change is a candidate",
  );
  assert.equal(isSymptom(row("diagnostic-run", "1 pair · by admin"), pair), true);
  assert.equal(isSymptom(row("audit-row", "PUT /api/v1/checks/x"), pair), false);
  assert.equal(isSymptom(row("mtr-path-change", "3 hops"), pair), false);
  assert.equal(isSymptom(row("firing-alert", "x"), pair), true);
});

test("a node's symptoms are the checks of any pair touching it", () => {
  const node: Investigation = { ...pair, kind: "node", scope: "node-2" };
  assert.equal(isSymptom(row("fleet-event", "CheckObserved · node-3->node-2"), node), true);
  assert.equal(isSymptom(row("fleet-event", "MTRCompleted · node-3->node-4"), node), false);
});
