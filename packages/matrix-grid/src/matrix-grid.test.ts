import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetMatrix, FleetProtocol, MatrixCell } from "@svc/contract";
import { fromGrid, gridTier, toGrid } from "./matrix-grid.ts";

const nodes = ["a", "b", "c"].map((name) => ({ name, zone: "z", external: false, planes: ["tcp", "udp"] }));
const matrix = (protocol: FleetProtocol, cells: MatrixCell[], sparse = true): FleetMatrix => ({
  protocol,
  generatedAt: "2026-11-23T12:00:00.000Z",
  sparse,
  nodes,
  cells,
});

test("tcp: implied cells travel as letters, the rest in details; expanding gives the cells back", () => {
  const cells: MatrixCell[] = [
    { source: "a", destination: "b", tier: "healthy", failRatio: 0 },
    { source: "a", destination: "c", tier: "failing", failRatio: 0.5 },
    { source: "b", destination: "a", tier: "degraded", failRatio: 0, rttP95Seconds: 0.25 },
    { source: "b", destination: "c", tier: "nodata" },
    { source: "c", destination: "a", tier: "notrun" },
    { source: "c", destination: "b", tier: "unplanned" },
  ];
  const g = toGrid(matrix("tcp", cells));
  assert.equal(g.layout, "grid");
  assert.equal(g.tiers, "-hfd-nru-");
  assert.deepEqual(
    g.details.map((c) => `${c.source}${c.destination}`),
    ["ac", "ba"],
    "only the cells whose figures say more than their tier",
  );
  assert.equal(g.sparse, true);
  assert.equal("cells" in g, false);
  assert.deepEqual(fromGrid(g), cells);
  // one pair's tier read from the letters agrees with the expanded cells; no tier off the grid or on the diagonal
  for (const c of cells)
    assert.equal(gridTier(g, c.source, c.destination), c.tier, `${c.source}->${c.destination}`);
  assert.equal(gridTier(g, "a", "a"), undefined);
  assert.equal(gridTier(g, "a", "zz"), undefined);
});

test("udp: a healthy cell implies loss 0 too; a loss figure goes to details", () => {
  const cells: MatrixCell[] = [
    { source: "a", destination: "b", tier: "healthy", failRatio: 0, lossRatio: 0 },
    { source: "a", destination: "c", tier: "degraded", failRatio: 0, lossRatio: 0.2 },
    { source: "b", destination: "a", tier: "healthy", failRatio: 0 }, // no loss figure: not implied
    { source: "b", destination: "c", tier: "healthy", failRatio: 0, lossRatio: 0 },
    { source: "c", destination: "a", tier: "healthy", failRatio: 0, lossRatio: 0 },
    { source: "c", destination: "b", tier: "healthy", failRatio: 0, lossRatio: 0 },
  ];
  const g = toGrid(matrix("udp", cells));
  assert.deepEqual(
    g.details.map((c) => `${c.source}${c.destination}`),
    ["ac", "ba"],
  );
  assert.deepEqual(fromGrid(g), cells);
});

test("pmtu: badges always travel in details; a pair the cells layout lacks: unplanned (sparse), else no data", () => {
  const cells: MatrixCell[] = [
    {
      source: "a",
      destination: "b",
      tier: "healthy",
      pmtu: { badge: "Full size", bytes: 1500, probeBytes: 1500 },
    },
    {
      source: "b",
      destination: "a",
      tier: "degraded",
      pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 },
    },
  ];
  assert.equal(toGrid(matrix("pmtu", cells)).tiers, "-hud-uuu-");
  const g = toGrid(matrix("pmtu", cells, false));
  assert.equal(g.tiers, "-hnd-nnn-");
  assert.equal(g.details.length, 2);
  const back = fromGrid(g);
  assert.equal(back.length, 6);
  assert.deepEqual(back[0], cells[0]);
  assert.deepEqual(back[2], cells[1]);
  assert.deepEqual(back[1], { source: "a", destination: "c", tier: "nodata" });
});
