/**
 * Random fleets, one random fault from the catalogue on a random element: the answer's top suspect is that element,
 * its whole explanation is one suspect, and a node down is never called a network fault nor the reverse.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { localize } from "./localize.ts";
import { observe } from "./observations.ts";
import { type SimFault, simFleet, simulate } from "./testdata/fleet-sim.ts";

/** The id the answer must give for a fault (node names sorted by their place in the fleet for two-way pairs). */
function expectedId(f: SimFault, order: (n: string) => number): string {
  switch (f.kind) {
    case "isolate":
      return `node:${f.node}:${{ in: "inbound", out: "outbound", both: "both" }[f.direction]}`;
    case "down":
      return `node-down:${f.node}`;
    case "zones":
      return `zone-pair:${[f.a, f.b].sort().join("|")}`;
    case "block":
      return `node-protocol:${f.node}:${f.protocol}:${f.direction === "in" ? "inbound" : "outbound"}`;
    case "pair": {
      const names = f.both ? [f.from, f.to].sort((a, b) => order(a) - order(b)) : [f.from, f.to];
      return `pair:${names.join("|")}:${f.both ? "both" : "one-way"}:${(f.protocols ?? ["tcp", "udp", "icmp"]).join("+")}`;
    }
    case "loss":
      return `node:${f.node}:both`;
    case "mtu":
      return `node-mtu:${f.node}:inbound`;
    case "pmtu-pair":
      return `pair:${f.from}|${f.to}:one-way:pmtu`;
  }
}

const arbitraryCase = fc
  .record({ zones: fc.integer({ min: 2, max: 4 }), perZone: fc.integer({ min: 3, max: 6 }), seed: fc.nat() })
  .chain(({ zones, perZone, seed }) => {
    const fleet = simFleet(zones, perZone);
    const node = fc.constantFrom(...fleet.map((n) => n.name));
    const zone = fc.constantFrom(
      ...Array.from({ length: zones }, (_, i) => `zone-${String.fromCharCode(97 + i)}`),
    );
    const plane = fc.constantFrom("tcp" as const, "udp" as const, "icmp" as const);
    const fault: fc.Arbitrary<SimFault> = fc.oneof(
      fc.record({
        kind: fc.constant("isolate" as const),
        node,
        direction: fc.constantFrom("in" as const, "out" as const, "both" as const),
      }),
      fc.record({ kind: fc.constant("down" as const), node, host: fc.boolean() }),
      fc
        .tuple(zone, zone)
        .filter(([a, b]) => a !== b)
        .map(([a, b]) => ({ kind: "zones" as const, a, b })),
      fc.record({
        kind: fc.constant("block" as const),
        node,
        protocol: plane,
        direction: fc.constantFrom("in" as const, "out" as const),
      }),
      fc
        .tuple(node, node, fc.boolean(), fc.option(plane, { nil: undefined }))
        .filter(([a, b]) => a !== b)
        .map(([from, to, both, p]) => ({
          kind: "pair" as const,
          from,
          to,
          both,
          ...(p ? { protocols: [p] } : {}),
        })),
      fc.record({ kind: fc.constant("loss" as const), node, ratio: fc.constant(0.2) }),
      fc.record({ kind: fc.constant("mtu" as const), node, bytes: fc.constant(1400) }),
      fc
        .tuple(node, node)
        .filter(([a, b]) => a !== b)
        .map(([from, to]) => ({ kind: "pmtu-pair" as const, from, to })),
    );
    return fc.record({ fleet: fc.constant(fleet), fault, seed: fc.constant(seed) });
  });

test("one random fault on a random fleet: the top suspect is the element at fault", () => {
  fc.assert(
    fc.property(arbitraryCase, ({ fleet, fault, seed }) => {
      const order = (n: string) => fleet.findIndex((x) => x.name === n);
      const first = simulate(fleet, [fault], { now: 100, seed });
      const m = localize(observe(first.nodes, first.cells), { now: 100 }).memory;
      const { nodes, cells } = simulate(fleet, [fault], { now: 105, reportAge: 1, seed });
      const r = localize(observe(nodes, cells), { now: 105, memory: m });
      const ids = r.suspects.map((s) => `${s.role} ${s.id}`).join("; ");
      assert.equal(r.suspects[0]?.id, expectedId(fault, order), ids);
      assert.equal(r.suspects.filter((s) => s.role === "suspect").length, 1, ids);
      const down = fault.kind === "down";
      for (const s of r.suspects.filter((x) => x.role === "suspect"))
        assert.equal(s.kind === "node-down", down, `node down and network fault kept apart: ${ids}`);
    }),
    { numRuns: 300, seed: 34 },
  );
});
