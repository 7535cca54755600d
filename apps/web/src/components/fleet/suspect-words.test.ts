import assert from "node:assert/strict";
import { test } from "node:test";
import type { Suspect } from "@svc/contract";
import { explainsPair, namesElement, outlineEdges, suspectElement, suspectTitle } from "./suspect-words.ts";

const base = {
  confidence: 1,
  explains: 1,
  evidence: ["x"],
  role: "suspect" as const,
  since: "2026-11-28T00:00:00Z",
};
const inbound: Suspect = {
  ...base,
  id: "node:b:inbound",
  kind: "node",
  mode: "inbound",
  effect: "fail",
  node: "b",
  protocols: ["tcp", "udp", "icmp"],
  scope: [{ sources: null, destinations: ["b"] }],
};
const zones: Suspect = {
  ...base,
  id: "zone-pair:z1|z2",
  kind: "zone-pair",
  mode: "partitioned",
  effect: "fail",
  zones: ["z1", "z2"],
  protocols: ["tcp"],
  scope: [
    { sources: ["a"], destinations: ["c", "d"] },
    { sources: ["c", "d"], destinations: ["a"] },
  ],
};

test("titles and elements read as an operator says them", () => {
  assert.equal(suspectTitle(inbound), "Node cut off inbound");
  assert.equal(suspectElement(inbound), "b");
  assert.equal(suspectTitle(zones), "Zones partitioned");
  assert.equal(suspectElement(zones), "z1 ↔ z2");
  assert.equal(suspectTitle({ ...inbound, kind: "node-down", mode: "down-agent" }), "Agent down");
  assert.equal(
    suspectTitle({ ...inbound, kind: "node-protocol", protocols: ["udp"] }),
    "UDP blocked to node",
  );
});

test("a suspect explains the pairs of its blocks on its protocols only", () => {
  assert.equal(explainsPair(inbound, "udp", "a", "b"), true);
  assert.equal(explainsPair(inbound, "pmtu", "a", "b"), false);
  assert.equal(explainsPair(inbound, "tcp", "b", "a"), false);
  assert.equal(explainsPair(zones, "tcp", "d", "a"), true);
  assert.equal(explainsPair(zones, undefined, "a", "b"), false);
  assert.equal(namesElement(inbound, { node: "b" }), true);
  const pair: Suspect = {
    ...inbound,
    kind: "pair",
    mode: "both",
    node: undefined,
    source: "a",
    destination: "b",
  };
  assert.equal(namesElement(pair, { source: "b", destination: "a" }), true);
});

test("outlines: a column block has its outer edges only, the diagonal gap does not break it", () => {
  const names = ["a", "b", "c"];
  const e = outlineEdges([inbound], "tcp", names);
  // column b: rows a and c (row b is the diagonal)
  assert.deepEqual([...e.keys()].sort(), [0 * 3 + 1, 2 * 3 + 1]);
  // a,b: top edge, left and right edges, no bottom (b,b below counts inside)
  assert.equal(e.get(1), 1 | 2 | 8);
  // c,b: bottom edge, left and right
  assert.equal(e.get(7), 2 | 4 | 8);
  assert.equal(outlineEdges([inbound], "pmtu", names).size, 0, "not on other protocols");
});
