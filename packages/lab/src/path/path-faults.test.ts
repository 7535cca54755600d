import assert from "node:assert/strict";
import { test } from "node:test";
import { linkV4, linkV6, linkV6Subnet, pathNamespace, validatePlan } from "./addressing.ts";
import { chainScript, hopLossRules, lossRules, randomPercent, tableScript } from "./path-faults.ts";
import { planTopology } from "./path-topology.ts";

test("loss rules use basis points, never drop IPv6 neighbour discovery, and honour a destination", () => {
  assert.equal(randomPercent(12.5), "numgen random mod 10000 < 1250 ");
  assert.equal(randomPercent(100), "", "100 % is an unconditional drop (numgen cannot express 10000)");
  assert.throws(() => randomPercent(101), /0-100/);
  assert.deepEqual(lossRules("udp", 0), []);
  assert.deepEqual(lossRules("udp", 10, "198.19.2.2"), [
    "ip daddr 198.19.2.2 meta nfproto ipv4 meta l4proto udp numgen random mod 10000 < 1000 drop",
  ]);
  assert.deepEqual(lossRules("icmp", 10, "fd00:198:18::100:2:2"), [
    "ip6 daddr fd00:198:18::100:2:2 icmpv6 type echo-request numgen random mod 10000 < 1000 drop",
  ]);
  const all = lossRules("all", 5).join("\n");
  assert.match(all, /icmpv6 type != \{ nd-neighbor-solicit, nd-neighbor-advert/);
  assert.deepEqual(hopLossRules(30), [
    "icmp type { time-exceeded, echo-reply } numgen random mod 10000 < 3000 drop",
    "icmpv6 type { time-exceeded, echo-reply } numgen random mod 10000 < 3000 drop",
  ]);
});

test("the table jumps to every fault chain on output and to loss chains on forward", () => {
  const t = tableScript();
  assert.match(t, /type filter hook output[\s\S]*type filter hook forward/);
  assert.match(t, /flush chain inet svc_path output\n/);
  assert.match(t, /add rule inet svc_path output jump fragneeded\n/);
  assert.match(t, /add rule inet svc_path forward jump loss_udp\n/);
  assert.doesNotMatch(t, /forward jump (silence|hoploss|fragneeded)/);
  assert.equal(
    chainScript("hoploss", ["x drop"]),
    "flush chain inet svc_path hoploss\nadd rule inet svc_path hoploss x drop\n",
  );
});

test("the address plan stays inside the lab ranges and gives every hop its link ends", () => {
  assert.equal(linkV4(31, 4, 1), "198.19.252.2");
  assert.equal(linkV6(31, 4, 1), "fd00:198:18::11f:4:2");
  assert.equal(linkV6Subnet(0, 2), "fd00:198:18::100:2:0/112");
  assert.equal(pathNamespace(3, "R1"), "svcp3-r1");
  const { hops, links } = planTopology(2, 2, true, [1500, 1400, 1300]);
  assert.deepEqual(
    hops.map((h) => h.name),
    ["A", "R1", "R2", "B"],
  );
  assert.equal(hops[0]?.left, undefined);
  assert.equal(hops[1]?.left?.v4, "198.19.16.2");
  assert.equal(hops[1]?.right?.v4, "198.19.17.1");
  assert.equal(hops[3]?.left?.v6, "fd00:198:18::102:2:2");
  assert.deepEqual(
    links.map((l) => [l.left, l.right, l.mtu]),
    [
      ["A", "R1", 1500],
      ["R1", "R2", 1400],
      ["R2", "B", 1300],
    ],
  );
  assert.throws(() => validatePlan(1, [1500, 1200], true), /IPv6 minimum 1280/);
  assert.deepEqual(validatePlan(1, [1400], false), [1400, undefined]);
});
