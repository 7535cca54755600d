/** overlayPushed: the latest reports laid over a snapshot's cells, with the tier rules the snapshot used. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetMatrix, FleetProtocol, MatrixCell } from "@svc/contract";
import type { PairStatesBody } from "@svc/protocol";
import { pairKey } from "./figure-map.ts";
import { overlayPushed } from "./pushed-overlay.ts";

function matrix(protocol: FleetProtocol, cells: MatrixCell[]): FleetMatrix {
  const names = ["a", "b", "c", "d"];
  return {
    protocol,
    generatedAt: new Date(0).toISOString(),
    sparse: false,
    nodes: names.map((name) => ({ name, zone: "z", external: false, planes: [protocol] })),
    cells,
  };
}
const states = (sources: string[], problems: [string, string, FleetProtocol, number][]): PairStatesBody => ({
  sources,
  problems: problems.map(([source, destination, plane, ratio]) => ({ source, destination, plane, ratio })),
});
const tiers = (m: FleetMatrix) =>
  Object.fromEntries(m.cells.map((c) => [`${c.source}->${c.destination}`, c.tier]));

test("a reporting source's pairs follow its latest report; others, and unmeasured pairs, keep the snapshot's", () => {
  const m = matrix("tcp", [
    { source: "a", destination: "b", tier: "failing", failRatio: 0.3 },
    { source: "a", destination: "c", tier: "healthy", failRatio: 0 },
    { source: "a", destination: "d", tier: "nodata" },
    { source: "b", destination: "a", tier: "healthy", failRatio: 0 },
    { source: "d", destination: "a", tier: "healthy", failRatio: 0 },
  ]);
  const built = states(["a", "b"], [["a", "b", "tcp", 1]]);
  const latest = states(
    ["a", "b", "d"],
    [
      ["a", "c", "tcp", 1],
      ["a", "d", "tcp", 1],
      ["b", "a", "tcp", 0.5],
      ["d", "a", "tcp", 1], // d did not report when the snapshot was built: the next refresh decides
      ["a", "b", "udp", 1], // another plane
    ],
  );
  const out = overlayPushed(m, new Set(), built, latest);
  assert.deepEqual(tiers(out.matrix), {
    "a->b": "degraded", // failures in the window, fine now
    "a->c": "failing",
    "a->d": "nodata",
    "b->a": "healthy", // mixed latest runs with a clean window
    "d->a": "healthy",
  });
  assert.deepEqual([...out.mixed], [], "b->a has no failures in the window: not mixed");
  assert.equal(tiers(m)["a->c"], "healthy", "the snapshot itself is not changed");
  const again = overlayPushed(m, new Set(), built, built);
  assert.equal(again.matrix, m, "the reports it was built with: the snapshot as it is");
});

test("udp and icmp: the reported ratio is the latest loss; a mixed tcp pair with failures counts as mixed", () => {
  const udp = matrix("udp", [
    { source: "a", destination: "b", tier: "failing", failRatio: 0, lossRatio: 1 },
    { source: "a", destination: "c", tier: "healthy", failRatio: 0, lossRatio: 0 },
  ]);
  const out = overlayPushed(
    udp,
    new Set(),
    states(["a"], [["a", "b", "udp", 1]]),
    states(["a"], [["a", "c", "udp", 0.2]]),
  );
  assert.deepEqual(
    out.matrix.cells.map((c) => [c.destination, c.tier, c.lossRatio]),
    [
      ["b", "healthy", 0],
      ["c", "degraded", 0.2],
    ],
  );
  const tcp = matrix("tcp", [{ source: "a", destination: "b", tier: "degraded", failRatio: 0.2 }]);
  const mixed = overlayPushed(tcp, new Set(), states(["a"], []), states(["a"], [["a", "b", "tcp", 0.5]]));
  assert.deepEqual([...mixed.mixed], [pairKey("a", "b")]);
  assert.equal(mixed.matrix, tcp, "no tier changed: the same snapshot");
});

test("path MTU and a snapshot built without reports are served as they are", () => {
  const pmtu = matrix("pmtu", [{ source: "a", destination: "b", tier: "healthy" }]);
  assert.equal(
    overlayPushed(pmtu, new Set(), states(["a"], []), states(["a"], [["a", "b", "pmtu", 1]])).matrix,
    pmtu,
  );
  const tcp = matrix("tcp", [{ source: "a", destination: "b", tier: "healthy", failRatio: 0 }]);
  assert.equal(overlayPushed(tcp, new Set(), undefined, states(["a"], [["a", "b", "tcp", 1]])).matrix, tcp);
});
