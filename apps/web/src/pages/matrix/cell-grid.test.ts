import assert from "node:assert/strict";
import { test } from "node:test";
import { toGrid } from "@svc/matrix-grid";
import type { MatrixCell, MatrixNode } from "../../components/fleet/types.ts";
import { CellGrid } from "./cell-grid.ts";

const node = (name: string, zone = "z"): MatrixNode => ({ name, zone, external: false, planes: ["tcp"] });

test("display rows read the answer's letters whatever the order; figures come from details or the tier", () => {
  const answerNodes = [node("a"), node("b"), node("c")];
  const cells: MatrixCell[] = [
    { source: "a", destination: "b", tier: "failing", failRatio: 0.5 },
    { source: "b", destination: "a", tier: "healthy", failRatio: 0 },
    { source: "c", destination: "a", tier: "notrun" },
  ];
  const answer = toGrid({
    protocol: "tcp",
    generatedAt: "2026-11-23T12:00:00.000Z",
    sparse: false,
    nodes: answerNodes,
    cells,
  });
  // the page shows c, b, a
  const g = new CellGrid([node("c"), node("b"), node("a")], answer);
  assert.equal(g.n, 3);
  assert.equal(g.size, 6);
  assert.equal(g.tierAt(2, 1), "failing", "a -> b");
  assert.equal(g.tierAt(1, 2), "healthy", "b -> a");
  assert.equal(g.tierAt(0, 2), "notrun", "c -> a");
  assert.equal(g.tierAt(2, 0), "nodata", "a -> c: not in the answer");
  assert.equal(g.tierAt(1, 1), null);
  assert.equal(g.tierAt(0, 3), null);
  assert.deepEqual(g.at(2, 1), cells[0], "a detail keeps its figures");
  assert.deepEqual(g.at(1, 2), cells[1], "an implied cell gets fail ratio 0 back");
  assert.deepEqual(g.get("a", "c"), { source: "a", destination: "c", tier: "nodata" });
  assert.equal(g.get("a", "a"), undefined);
  assert.equal(g.get("a", "ghost"), undefined);
});

test("a node the answer lacks reads as no data; no answer yet is an empty grid", () => {
  const answer = toGrid({
    protocol: "udp",
    generatedAt: "2026-11-23T12:00:00.000Z",
    sparse: false,
    nodes: [node("a"), node("b")],
    cells: [{ source: "a", destination: "b", tier: "healthy", failRatio: 0, lossRatio: 0 }],
  });
  const g = new CellGrid([node("a"), node("b"), node("new")], answer);
  assert.equal(g.tierAt(0, 2), "nodata");
  assert.deepEqual(g.at(2, 0), { source: "new", destination: "a", tier: "nodata" });
  assert.deepEqual(g.at(0, 1), {
    source: "a",
    destination: "b",
    tier: "healthy",
    failRatio: 0,
    lossRatio: 0,
  });
  assert.equal(new CellGrid([], undefined).size, 0);
});
