/**
 * Node down versus network fault: a node whose column fails is down only when it reports nothing; while its last
 * report predates the failure it is held (unreachable on more than one plane, nothing on one), and once known up it
 * stays up while its column fails (localize.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { localize } from "./localize.ts";
import { observe } from "./observations.ts";
import { answer, explanation, FLEET, NOW, show, top } from "./testdata/answers.ts";
import { type SimFault, simulate } from "./testdata/fleet-sim.ts";

describe("node down versus network fault", () => {
  test("a node gone down before its own report went stale is unreachable, never a network fault", () => {
    for (const host of [true, false]) {
      const r = answer([{ kind: "down", node: "node-3", host }], { notYetStale: true, reportAge: 3 });
      const s = top(r);
      assert.equal(s.id, "node:node-3:unreachable", show(r));
      assert.ok(
        r.suspects.every((x) => !(x.node === "node-3" && ["inbound", "both", "outbound"].includes(x.mode))),
        `no network verdict on node-3: ${show(r)}`,
      );
      // still not reported since: unreachable; then its series go: down
      const again = answer(
        [{ kind: "down", node: "node-3", host }],
        { notYetStale: true, reportAge: 8, now: NOW + 5 },
        r.memory,
      );
      assert.equal(top(again).id, "node:node-3:unreachable");
      const stale = answer([{ kind: "down", node: "node-3", host }], { now: NOW + 10 }, again.memory);
      assert.equal(top(stale).id, "node-down:node-3");
      assert.equal(top(stale).mode, host ? "down-host" : "down-agent");
    }
  });

  test("a node cut off inbound is unreachable until it reports after the failure was seen, then inbound", () => {
    const fault: SimFault[] = [{ kind: "isolate", node: "node-7", direction: "in" }];
    const first = answer(fault, { reportAge: 1 }, { unconfirmedSince: new Map(), firstSeen: new Map() });
    assert.equal(top(first).id, "node:node-7:unreachable", show(first));
    // the next answer 2 s later: node-7's newest report is 1 s old, so newer than the failure's first sight
    const next = answer(fault, { now: NOW + 2, reportAge: 1 }, first.memory);
    assert.equal(top(next).id, "node:node-7:inbound", show(next));
    assert.equal(top(next).since, NOW + 2);
  });

  test("a column failing on one plane names nothing until its node reports again, then the protocol", () => {
    const fault: SimFault[] = [{ kind: "block", node: "node-5", protocol: "udp", direction: "in" }];
    const first = answer(fault, { reportAge: 1 });
    assert.equal(first.failingCells, 11);
    assert.deepEqual(first.suspects, [], `held, no pair of node-5 offered instead: ${show(first)}`);
    assert.equal(first.explainedCells, 0);
    const next = answer(fault, { now: NOW + 3, reportAge: 1 }, first.memory);
    assert.equal(top(next).id, "node-protocol:node-5:udp:inbound", show(next));
    assert.equal(top(next).since, NOW, "its time is when the column was first seen failing");
  });

  test("a node going down plane by plane is never named a network fault on the way", () => {
    for (const host of [true, false]) {
      const down: SimFault[] = [{ kind: "down", node: "node-3", host }];
      // the first answer sees only tcp (a refused connect arrives before the udp timeouts)
      const { nodes, cells } = simulate(FLEET, down, { now: NOW, notYetStale: true, reportAge: 2 });
      const tcpOnly = cells.map((c) =>
        c.protocol === "tcp" ? c : { ...c, state: "ok" as const, lossRatio: 0 },
      );
      const first = localize(observe(nodes, tcpOnly), { now: NOW });
      const second = answer(down, { now: NOW + 2, notYetStale: true, reportAge: 4 }, first.memory);
      const stale = answer(down, { now: NOW + 8 }, second.memory);
      for (const [i, r] of [first, second, stale].entries())
        assert.ok(
          r.suspects.every((x) => x.kind === "node-down" || x.mode === "unreachable" || x.node !== "node-3"),
          `answer ${i}: no network verdict on node-3: ${show(r)}`,
        );
      assert.equal(top(second).id, "node:node-3:unreachable", show(second));
      assert.equal(top(stale).id, "node-down:node-3", show(stale));
    }
  });

  test("the first source to see a node go down (one pair, every plane) is held, not named a pair fault", () => {
    const { nodes, cells } = simulate(FLEET, [{ kind: "down", node: "node-3", host: true }], {
      now: NOW,
      notYetStale: true,
    });
    const first = cells.map((c) =>
      c.destination === "node-3" && c.source !== "node-1" ? { ...c, state: "ok" as const, lossRatio: 0 } : c,
    );
    const r = localize(observe(nodes, first), { now: NOW });
    assert.equal(r.failingCells, 3);
    assert.deepEqual(r.suspects, [], show(r));
    // the same pair still failing 4 s later, alone: a pair fault
    const later = localize(observe(nodes, first), { now: NOW + 4, memory: r.memory });
    assert.equal(top(later).id, "pair:node-1|node-3:one-way:tcp+udp+icmp", show(later));
  });

  test("a node known up by its own failing row stays up when the row clears before its next report", () => {
    const fault: SimFault[] = [{ kind: "block", node: "node-5", protocol: "udp", direction: "in" }];
    const { nodes, cells } = simulate(FLEET, fault, { now: NOW, reportAge: 1 });
    // one cell of node-5's own row fails too (a stray lost run): it reported after the fault began
    const stray = cells.map((c) =>
      c.source === "node-5" && c.destination === "node-9" && c.protocol === "icmp"
        ? { ...c, state: "fail" as const, lossRatio: 1 }
        : c,
    );
    const first = localize(observe(nodes, stray), { now: NOW });
    assert.equal(explanation(first)[0]?.id, "node-protocol:node-5:udp:inbound", show(first));
    // the stray is gone, and node-5 has not reported again yet
    const next = answer(fault, { now: NOW + 2, reportAge: 3 }, first.memory);
    assert.equal(top(next).id, "node-protocol:node-5:udp:inbound", show(next));
  });

  test("a node known up stays up when its column dips under the threshold for one answer", () => {
    const fault: SimFault[] = [{ kind: "isolate", node: "node-7", direction: "in" }];
    const first = answer(fault, { reportAge: 1 });
    const up = answer(fault, { now: NOW + 2, reportAge: 1 }, first.memory);
    assert.equal(top(up).id, "node:node-7:inbound", show(up));
    // one answer where most of its column reads healthy (a store between two scrapes)
    const { nodes, cells } = simulate(FLEET, fault, { now: NOW + 4, reportAge: 3 });
    let keep = 2;
    const dipped = cells.map((c) =>
      c.state === "fail" && c.protocol === "tcp" && keep-- > 0
        ? c
        : { ...c, state: "ok" as const, lossRatio: 0 },
    );
    const dip = localize(observe(nodes, dipped), { now: NOW + 4, memory: up.memory });
    // back, and node-7 has not reported since the dip: still known up
    const back = answer(fault, { now: NOW + 5, reportAge: 4 }, dip.memory);
    assert.equal(top(back).id, "node:node-7:inbound", show(back));
    // healed (no cell of its column fails): the next fault waits again
    const healed = answer([], { now: NOW + 10, reportAge: 1 }, back.memory);
    const anew = answer(fault, { now: NOW + 12, reportAge: 3 }, healed.memory);
    assert.equal(top(anew).id, "node:node-7:unreachable", show(anew));
  });

  test("a node whose own row fails reported after the fault: a network fault at once", () => {
    const r = answer([{ kind: "isolate", node: "node-7", direction: "both" }], { reportAge: 30 });
    assert.equal(top(r).id, "node:node-7:both");
  });
});
