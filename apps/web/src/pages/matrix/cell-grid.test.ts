import assert from "node:assert/strict";
import { test } from "node:test";
import type { MatrixNode } from "../../components/fleet/types.ts";
import { CellGrid } from "./cell-grid.ts";

const node = (name: string): MatrixNode => ({ name, zone: "z", external: false, planes: ["tcp"] });

test("cells land at (source row, destination column); missing pairs read as nodata; the diagonal is empty", () => {
  const g = new CellGrid(
    [node("a"), node("b"), node("c")],
    [
      { source: "a", destination: "b", tier: "failing" },
      { source: "b", destination: "a", tier: "healthy" },
      { source: "a", destination: "ghost", tier: "failing" },
    ],
  );
  assert.equal(g.size, 2, "a cell of an unknown node is dropped");
  assert.equal(g.get("a", "b")?.tier, "failing");
  assert.equal(g.get("b", "a")?.tier, "healthy");
  assert.equal(g.get("a", "c"), undefined);
  assert.equal(g.tierAt(0, 1), "failing");
  assert.equal(g.tierAt(1, 0), "healthy");
  assert.equal(g.tierAt(0, 2), "nodata");
  assert.equal(g.tierAt(1, 1), null);
  assert.equal(g.tierAt(0, 3), null);
  assert.deepEqual(g.at(2, 0), { source: "c", destination: "a", tier: "nodata" });
  assert.equal(g.at(2, 2), null);
});
