/**
 * The Overview's worst pairs and the Topology's links carry the pair's path MTU reading (issue 37): a PMTU black
 * hole is listed with its badge, the size that crossed and the size probed, and each topology link with the pmtu
 * matrix's reading of that pair, so the pages show them instead of "—".
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetMatrix, MatrixCell } from "@svc/contract";
import { snapshotOf } from "../testing/fake-controller.ts";
import { fleetView } from "./fleet-view.ts";
import { buildOverview, buildTopology } from "./overview.ts";

const NOW = new Date(Date.UTC(2026, 2, 1));

function matrix(protocol: FleetMatrix["protocol"], cells: MatrixCell[]): FleetMatrix {
  return { protocol, generatedAt: NOW.toISOString(), sparse: false, nodes: [], cells };
}

test("a PMTU black hole is a worst pair with its sizes, and topology links carry the pmtu readings", () => {
  const view = fleetView(snapshotOf(["a", "b"]));
  const healthy = (source: string, destination: string): MatrixCell => ({
    source,
    destination,
    tier: "healthy",
  });
  const tcp = matrix("tcp", [healthy("a", "b"), healthy("b", "a")]);
  const pmtu = matrix("pmtu", [
    {
      source: "a",
      destination: "b",
      tier: "failing",
      pmtu: { badge: "Black hole", bytes: 576, probeBytes: 1500 },
    },
    {
      source: "b",
      destination: "a",
      tier: "healthy",
      pmtu: { badge: "Full size", bytes: 1500, probeBytes: 1500 },
    },
  ]);
  const o = buildOverview(view, { tcp, udp: matrix("udp", []), icmp: matrix("icmp", []), pmtu }, NOW);
  assert.deepEqual(o.worstPairs, [
    {
      source: "a",
      destination: "b",
      protocol: "pmtu",
      tier: "failing",
      pmtu: { badge: "Black hole", bytes: 576, probeBytes: 1500 },
    },
  ]);
  const t = buildTopology(view, [tcp], NOW, pmtu);
  assert.deepEqual(
    t.links.map((l) => [l.source, l.destination, l.tier, l.pmtu?.badge, l.pmtu?.bytes, l.pmtu?.probeBytes]),
    [
      ["a", "b", "healthy", "Black hole", 576, 1500],
      ["b", "a", "healthy", "Full size", 1500, 1500],
    ],
  );
  assert.equal(buildTopology(view, [tcp], NOW).links[0]?.pmtu, undefined, "no pmtu matrix: no reading");
});
