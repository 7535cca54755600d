import assert from "node:assert/strict";
import { test } from "node:test";
import { cellAt, gridLayout, orderNodes } from "./matrix-geometry.ts";

test("a 200-node grid fits 1200 px without labels; a 10-node grid keeps its labels", () => {
  const big = gridLayout(200, 1200);
  assert.equal(big.label, 0);
  assert.equal(big.cell, 6);
  assert.equal(big.width, 1200);
  const small = gridLayout(10, 1200);
  assert.equal(small.label, 110);
  assert.equal(small.cell, 28);
  assert.equal(small.width, 110 + 280);
  assert.equal(gridLayout(500, 1200).cell, 6, "never below 6 px: the canvas scrolls instead");
});

test("hit-testing maps a point to its row (source) and column (destination)", () => {
  const g = gridLayout(200, 1200); // 6 px cells, no labels
  assert.deepEqual(cellAt(g, 6 * 5 + 1, 6 * 7 + 5), { row: 7, col: 5 });
  assert.deepEqual(cellAt(g, 1199, 0), { row: 0, col: 199 });
  assert.equal(cellAt(g, 6 * 3 + 2, 6 * 3 + 2), null, "the diagonal is no pair");
  assert.equal(cellAt(g, 1200, 10), null, "right of the grid");
  assert.equal(cellAt(g, -1, 10), null);
  const l = gridLayout(10, 1200); // labels 110 px, 28 px cells
  assert.equal(cellAt(l, 100, 200), null, "on the row labels");
  assert.deepEqual(cellAt(l, 110 + 28 * 2, 110 + 28 * 9 + 27), { row: 9, col: 2 });
});

test("nodes read by zone then name, external agents last", () => {
  const n = (name: string, zone: string, external = false) => ({ name, zone, external, planes: [] });
  const order = orderNodes([
    n("ext-1", "external", true),
    n("b", "zone-b"),
    n("c", "zone-a"),
    n("a", "zone-a"),
  ]);
  assert.deepEqual(
    order.map((x) => x.name),
    ["a", "c", "b", "ext-1"],
  );
});
