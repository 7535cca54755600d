import assert from "node:assert/strict";
import { test } from "node:test";
import { type FaultEndpoint, faultRules, parseFault } from "./faults.ts";

const nodes = new Map<string, FaultEndpoint>([
  ["node-1", { namespace: "svc1-node-1", address: "198.18.1.11", tcpPort: 8080, udpPort: 9090 }],
  ["node-2", { namespace: "svc1-node-2", address: "198.18.1.12", tcpPort: 8081, udpPort: 9091 }],
]);

test("drop of one protocol matches only probes towards the destination's probe port", () => {
  const rules = faultRules({ kind: "drop", from: "node-1", to: "node-2", protocol: "udp" }, nodes);
  assert.deepEqual([...rules], [["svc1-node-1", ["ip daddr 198.18.1.12 udp dport 9091 drop"]]]);
  const tcp = faultRules({ kind: "drop", from: "node-2", to: "node-1", protocol: "tcp" }, nodes);
  assert.deepEqual([...tcp], [["svc1-node-2", ["ip daddr 198.18.1.11 tcp dport 8080 drop"]]]);
  const icmp = faultRules({ kind: "drop", from: "node-2", to: "node-1", protocol: "icmp" }, nodes);
  assert.deepEqual([...icmp], [["svc1-node-2", ["ip daddr 198.18.1.11 icmp type echo-request drop"]]]);
});

test("loss uses numgen with basis points; partition drops both ways", () => {
  const loss = faultRules(
    { kind: "loss", from: "node-1", to: "node-2", protocol: "all", percent: 12.5 },
    nodes,
  );
  assert.deepEqual(loss.get("svc1-node-1"), ["ip daddr 198.18.1.12 numgen random mod 10000 < 1250 drop"]);
  const all = faultRules(
    { kind: "loss", from: "node-1", to: "node-2", protocol: "udp", percent: 100 },
    nodes,
  );
  assert.deepEqual(
    all.get("svc1-node-1"),
    ["ip daddr 198.18.1.12 udp dport 9091 drop"],
    "100 % is a plain drop",
  );
  const part = faultRules({ kind: "partition", a: "node-1", b: "node-2" }, nodes);
  assert.deepEqual(part.get("svc1-node-1"), ["ip daddr 198.18.1.12 drop"]);
  assert.deepEqual(part.get("svc1-node-2"), ["ip daddr 198.18.1.11 drop"]);
});

test("unknown nodes and bad words are refused with a clear message", () => {
  assert.throws(
    () => faultRules({ kind: "drop", from: "node-9", to: "node-1", protocol: "tcp" }, nodes),
    /unknown lab node "node-9"/,
  );
  assert.throws(() => parseFault(["drop", "node-1"]), /usage: drop FROM TO/);
  assert.throws(() => parseFault(["drop", "a", "b", "sctp"]), /protocol must be one of/);
  assert.throws(() => parseFault(["loss", "a", "b", "150"]), /PERCENT must be a number 0-100/);
  assert.throws(() => parseFault(["flap"]), /usage: flap A B/);
  assert.throws(() => parseFault(["teleport"]), /unknown fault "teleport"/);
  assert.deepEqual(parseFault(["loss", "a", "b", "10", "udp"]), {
    kind: "loss",
    from: "a",
    to: "b",
    percent: 10,
    protocol: "udp",
  });
});
