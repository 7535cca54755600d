// A sparse plan's matrix (issue 35): only the planned pairs are cells (a plan naming a node twice, or a node the
// inventory does not know, still makes one cell or none), in node order; a source that does not run the protocol
// keeps a "not run" cell for every destination; the grid reads every pair left out as unplanned; expected pairs
// follow the plan's lists.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gridTier, toGrid } from "@svc/matrix-grid";
import { snapshotOf } from "../testing/fake-controller.ts";
import type { FigureMap } from "./figure-map.ts";
import { expectedPairs, fleetView } from "./fleet-view.ts";
import { buildMatrix } from "./matrix.ts";

test("sparse: planned pairs only, deduplicated, in node order; not-run rows whole; the rest unplanned", () => {
  const snap = snapshotOf(["a", "b", "c", "d"]);
  // c runs no tcp plane (capabilities list planes; none given reads as every plane)
  const c = snap.agents.find((x) => x.nodeName === "c");
  if (c) c.capabilities = ["plane:udp"];
  snap.probePlan = { a: ["d", "b", "d", "ghost"], b: [], c: ["a"], d: ["a"] };
  const view = fleetView(snap);
  const m = buildMatrix(view, "tcp", new Map() as FigureMap, new Date(0));
  assert.deepEqual(
    m.cells.map((x) => `${x.source}${x.destination}:${x.tier}`),
    ["ab:nodata", "ad:nodata", "ca:notrun", "cb:notrun", "cd:notrun", "da:nodata"],
  );
  const g = toGrid(m);
  assert.equal(gridTier(g, "b", "a"), "unplanned");
  assert.equal(gridTier(g, "a", "c"), "unplanned");
  assert.equal(gridTier(g, "c", "b"), "notrun");
  assert.equal(gridTier(g, "a", "d"), "nodata");
  assert.deepEqual(
    [...expectedPairs(view, "tcp")].map(([s, ds]) => `${s}:${ds.join(",")}`),
    ["a:b,d", "b:", "d:a"],
  );
});
