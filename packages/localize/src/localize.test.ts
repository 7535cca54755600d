/**
 * The engine against stated ground truth, the way Pingmesh and 007 state theirs: a fleet, an injected fault, the
 * cells the matrix shows for it (testdata/fleet-sim.ts), and the suspect the answer must name. Node down versus
 * network fault: localize-node-down.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { localize } from "./localize.ts";
import { observe } from "./observations.ts";
import { answer, explanation, FLEET, NOW, show, steady, top } from "./testdata/answers.ts";
import { type SimFault, simulate } from "./testdata/fleet-sim.ts";
import type { Suspect } from "./types.ts";

describe("healthy fleets", () => {
  test("no failing cell, no suspect", () => {
    const r = answer([]);
    assert.equal(r.failingCells, 0);
    assert.deepEqual(r.suspects, []);
    assert.equal(r.observedCells, 12 * 11 * 4);
  });

  test("a few lossy cells scattered over the fleet are noise, not a suspect", () => {
    const { nodes, cells } = simulate(FLEET, [], { now: NOW });
    for (const [s, d] of [
      ["node-1", "node-2"],
      ["node-5", "node-9"],
      ["node-12", "node-3"],
    ]) {
      const c = cells.find((x) => x.protocol === "udp" && x.source === s && x.destination === d);
      assert.ok(c);
      c.state = "lossy";
      c.lossRatio = 0.2;
    }
    const r = localize(observe(nodes, cells), { now: NOW });
    assert.equal(r.failingCells, 3);
    assert.deepEqual(r.suspects, [], show(r));
  });
});

describe("one fault of each kind: the top suspect is the element at fault", () => {
  const cases: { name: string; fault: SimFault; id: string; kind: Suspect["kind"]; mode: Suspect["mode"] }[] =
    [
      {
        name: "node isolated inbound",
        fault: { kind: "isolate", node: "node-7", direction: "in" },
        id: "node:node-7:inbound",
        kind: "node",
        mode: "inbound",
      },
      {
        name: "node isolated outbound",
        fault: { kind: "isolate", node: "node-7", direction: "out" },
        id: "node:node-7:outbound",
        kind: "node",
        mode: "outbound",
      },
      {
        name: "node isolated both ways",
        fault: { kind: "isolate", node: "node-7", direction: "both" },
        id: "node:node-7:both",
        kind: "node",
        mode: "both",
      },
      {
        name: "agent stopped",
        fault: { kind: "down", node: "node-3", host: false },
        id: "node-down:node-3",
        kind: "node-down",
        mode: "down-agent",
      },
      {
        name: "node or link down",
        fault: { kind: "down", node: "node-3", host: true },
        id: "node-down:node-3",
        kind: "node-down",
        mode: "down-host",
      },
      {
        name: "zone partition",
        fault: { kind: "zones", a: "zone-a", b: "zone-c" },
        id: "zone-pair:zone-a|zone-c",
        kind: "zone-pair",
        mode: "partitioned",
      },
      {
        name: "udp blocked to a node",
        fault: { kind: "block", node: "node-5", protocol: "udp", direction: "in" },
        id: "node-protocol:node-5:udp:inbound",
        kind: "node-protocol",
        mode: "inbound",
      },
      {
        name: "tcp blocked from a node",
        fault: { kind: "block", node: "node-5", protocol: "tcp", direction: "out" },
        id: "node-protocol:node-5:tcp:outbound",
        kind: "node-protocol",
        mode: "outbound",
      },
      {
        name: "a pair cut apart both ways",
        fault: { kind: "pair", from: "node-2", to: "node-9", both: true },
        id: "pair:node-2|node-9:both:tcp+udp+icmp",
        kind: "pair",
        mode: "both",
      },
      {
        name: "tcp dropped on one pair, one way",
        fault: { kind: "pair", from: "node-9", to: "node-2", protocols: ["tcp"] },
        id: "pair:node-9|node-2:one-way:tcp",
        kind: "pair",
        mode: "outbound",
      },
      {
        name: "loss on a node's link",
        fault: { kind: "loss", node: "node-11", ratio: 0.2 },
        id: "node:node-11:both",
        kind: "node",
        mode: "both",
      },
      {
        name: "a node's link MTU lowered",
        fault: { kind: "mtu", node: "node-4", bytes: 1400 },
        id: "node-mtu:node-4:inbound",
        kind: "node-mtu",
        mode: "inbound",
      },
      {
        name: "a PMTU black hole on one pair",
        fault: { kind: "pmtu-pair", from: "node-4", to: "node-8" },
        id: "pair:node-4|node-8:one-way:pmtu",
        kind: "pair",
        mode: "outbound",
      },
    ];
  for (const c of cases) {
    test(c.name, () => {
      // steady state: the answer after one before it (a column seen failing is confirmed by a later report)
      const r = answer([c.fault], { now: NOW + 5, reportAge: 1 }, answer([c.fault]).memory);
      const s = top(r);
      assert.equal(s.id, c.id, show(r));
      assert.equal(s.kind, c.kind);
      assert.equal(s.mode, c.mode);
      assert.equal(s.role, "suspect");
      assert.equal(explanation(r).length, 1, `one suspect explains it all: ${show(r)}`);
      assert.equal(r.explainedCells, r.failingCells, "every failing cell explained");
      assert.ok(s.confidence > 0.9, `confidence ${s.confidence}`);
      assert.ok(s.evidence.length > 0 && s.evidence.every((e) => e.length > 0));
    });
  }
});

describe("a single pair's failure is held back until it persists", () => {
  test("one failing cell names no suspect at first sight, and its pair 4 s later", () => {
    const fault: SimFault[] = [{ kind: "pair", from: "node-3", to: "node-4", protocols: ["udp"] }];
    const first = answer(fault);
    assert.deepEqual(first.suspects, [], show(first));
    assert.equal(first.failingCells, 1);
    assert.equal(first.explainedCells, 0);
    const soon = answer(fault, { now: NOW + 2 }, first.memory);
    assert.deepEqual(soon.suspects, [], "2 s later: still held");
    const later = answer(fault, { now: NOW + 4 }, soon.memory);
    assert.equal(top(later).id, "pair:node-3|node-4:one-way:udp");
    assert.equal(top(later).since, NOW);
  });

  test("a blip that is gone at the next answer never shows", () => {
    const blip = answer([{ kind: "pair", from: "node-3", to: "node-4", protocols: ["udp"] }]);
    const after = answer([], { now: NOW + 5 }, blip.memory);
    const again = answer(
      [{ kind: "pair", from: "node-3", to: "node-4", protocols: ["udp"] }],
      { now: NOW + 10 },
      after.memory,
    );
    assert.deepEqual(again.suspects, [], "seen anew: held again");
  });
});

describe("evidence reads as an operator would say it", () => {
  test("a protocol blocked to a node names the counts and the fine protocols", () => {
    const s = top(steady([{ kind: "block", node: "node-5", protocol: "udp", direction: "in" }]));
    assert.equal(s.evidence[0], "11 of 11 sources fail to reach node-5 over udp; tcp and icmp fine");
    assert.deepEqual(s.scope, [{ sources: null, destinations: ["node-5"] }]);
    assert.deepEqual(s.protocols, ["udp"]);
  });

  test("an agent stopped is told from a host down by ping", () => {
    const s = top(answer([{ kind: "down", node: "node-3", host: false }]));
    assert.match(s.evidence[0] ?? "", /node-3's agent is down: node-3 reports nothing/);
    assert.match(s.evidence[1] ?? "", /ping still answers \(11\/11\): the host is up/);
    assert.deepEqual(s.protocols, ["tcp", "udp"]);
  });

  test("a zone pair names both zones, the failing share and the healthy inside", () => {
    const s = top(answer([{ kind: "zones", a: "zone-a", b: "zone-c" }]));
    assert.deepEqual(s.zones, ["zone-a", "zone-c"]);
    assert.match(s.evidence[0] ?? "", /^96 of 96 probes between zone-a and zone-c fail/);
    assert.equal(s.scope.length, 2);
    assert.deepEqual(s.scope[0]?.sources, ["node-1", "node-4", "node-7", "node-10"]);
  });

  test("loss reads as loss, with its size", () => {
    const s = top(answer([{ kind: "loss", node: "node-11", ratio: 0.2 }]));
    assert.equal(s.effect, "loss");
    assert.match(s.evidence[0] ?? "", /losing \d+% of their packets on average/);
  });

  test("the path MTU suspect names the sizes", () => {
    const s = top(answer([{ kind: "mtu", node: "node-4", bytes: 1400 }]));
    assert.match(s.evidence[0] ?? "", /11 of 11 sources see a path-MTU black hole towards node-4/);
    assert.match(s.evidence[1] ?? "", /own probes cross at 1400 bytes only/);
  });
});

describe("several faults and partial views", () => {
  test("two faults at once give two suspects", () => {
    const r = answer([
      { kind: "down", node: "node-2", host: true },
      { kind: "block", node: "node-9", protocol: "icmp", direction: "out" },
    ]);
    const ids = explanation(r).map((s) => s.id);
    assert.deepEqual(
      new Set(ids),
      new Set(["node-down:node-2", "node-protocol:node-9:icmp:outbound"]),
      show(r),
    );
    assert.equal(r.explainedCells, r.failingCells);
  });

  test("a column half filled (scrapes still arriving) names its node; two cells name two pairs", () => {
    const fleet = simulate(FLEET, [{ kind: "block", node: "node-6", protocol: "tcp", direction: "in" }], {
      now: NOW,
    });
    const filled = (n: number) => {
      let left = n;
      const cells = fleet.cells.map((c) => {
        if (c.state !== "fail") return c;
        return left-- > 0 ? c : { ...c, state: "ok" as const };
      });
      const first = localize(observe(fleet.nodes, cells), { now: NOW });
      // node-6 reported after its column was first seen failing: it is up
      const reported = fleet.nodes.map((n) => ({ ...n, reportedAt: NOW + 3 }));
      return localize(observe(reported, cells), { now: NOW + 5, memory: first.memory });
    };
    assert.equal(top(filled(6)).id, "node-protocol:node-6:tcp:inbound", show(filled(6)));
    const two = filled(2);
    assert.deepEqual(
      explanation(two).map((s) => s.kind),
      ["pair", "pair"],
      show(two),
    );
  });

  test("a sparse plan: a node is still named from the sources that probe it", () => {
    const idx = (n: string) => Number(n.slice(5));
    // ring of degree 2 plus nothing else: each node probes the next two
    const planned = (s: string, d: string) => [1, 2].includes((idx(d) - idx(s) + 12) % 12);
    const r = steady([{ kind: "block", node: "node-6", protocol: "udp", direction: "in" }], { planned });
    assert.equal(r.observedCells, 12 * 2 * 4);
    assert.equal(top(r).id, "node-protocol:node-6:udp:inbound", show(r));
    assert.equal(top(r).evidence[0], "2 of 2 sources fail to reach node-6 over udp; tcp and icmp fine");
  });

  test("a protocol failing everywhere is one fleet-wide suspect", () => {
    const faults: SimFault[] = FLEET.map((n) => ({
      kind: "block",
      node: n.name,
      protocol: "udp",
      direction: "in",
    }));
    const r = answer(faults);
    assert.equal(top(r).id, "protocol:udp", show(r));
    assert.equal(explanation(r).length, 1);
  });

  test("the same input gives the same answer", () => {
    const f: SimFault[] = [
      { kind: "zones", a: "zone-b", b: "zone-c" },
      { kind: "loss", node: "node-1", ratio: 0.3 },
    ];
    assert.deepEqual(answer(f), answer(f));
  });
});

describe("path MTU on a pair", () => {
  test("a black hole seen from both ends is one suspect, both ways", () => {
    const r = steady([
      { kind: "pmtu-pair", from: "node-4", to: "node-8" },
      { kind: "pmtu-pair", from: "node-8", to: "node-4" },
    ]);
    assert.equal(top(r).id, "pair:node-4|node-8:both:pmtu", show(r));
    assert.equal(explanation(r).length, 1);
    assert.match(top(r).evidence[0] ?? "", /between node-4 and node-8, both ways/);
  });
});
