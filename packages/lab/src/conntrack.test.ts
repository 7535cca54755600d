import assert from "node:assert/strict";
import { test } from "node:test";
import { flowsPerPeer, parseConntrack, ssAddress } from "./conntrack.ts";

// as `conntrack -L` (conntrack-tools 1.4.7) and /proc/net/nf_conntrack print them
const LIST = `tcp      6 8 CLOSE src=198.18.1.10 dst=198.18.1.11 sport=40312 dport=8080 src=198.18.1.11 dst=198.18.1.10 sport=8080 dport=40312 [ASSURED] mark=0 use=1
tcp      6 117 TIME_WAIT src=198.18.1.12 dst=198.18.1.10 sport=51234 dport=8080 src=198.18.1.10 dst=198.18.1.12 sport=8080 dport=51234 [ASSURED] mark=0 use=1
udp      17 118 src=198.18.1.10 dst=198.18.1.11 sport=38000 dport=9090 src=198.18.1.11 dst=198.18.1.10 sport=9090 dport=38000 [ASSURED] mark=0 use=1
udp      17 25 src=198.18.1.10 dst=198.18.1.1 sport=41000 dport=53 src=198.18.1.1 dst=198.18.1.10 sport=53 dport=41000 mark=0 use=1
icmp     1 29 src=198.18.1.11 dst=198.18.1.10 type=8 code=0 id=16902 src=198.18.1.10 dst=198.18.1.11 type=0 code=0 id=16902 mark=0 use=1
`;
const PROC =
  "ipv4     2 tcp      6 431999 ESTABLISHED src=198.18.1.10 dst=198.18.1.1 sport=50000 dport=4000 src=198.18.1.1 dst=198.18.1.10 sport=4000 dport=50000 [ASSURED] mark=0 zone=0 use=2\n";

test("parses conntrack -L and /proc/net/nf_conntrack lines by their original tuple", () => {
  const flows = parseConntrack(
    `${LIST}${PROC}conntrack v1.4.7 (conntrack-tools): 6 flow entries have been shown.\n`,
  );
  assert.equal(flows.length, 6);
  assert.deepEqual(flows[0], {
    proto: "tcp",
    timeoutS: 8,
    state: "CLOSE",
    src: "198.18.1.10",
    dst: "198.18.1.11",
  });
  assert.deepEqual(flows[2], { proto: "udp", timeoutS: 118, src: "198.18.1.10", dst: "198.18.1.11" });
  assert.deepEqual(flows[5], {
    proto: "tcp",
    timeoutS: 431999,
    state: "ESTABLISHED",
    src: "198.18.1.10",
    dst: "198.18.1.1",
  });
});

test("counts each peer's flows in both directions and leaves the rest out", () => {
  const per = flowsPerPeer(parseConntrack(LIST + PROC), ["198.18.1.11", "198.18.1.12", "198.18.1.13"]);
  assert.deepEqual(per.get("198.18.1.11"), { tcp: 1, udp: 1, icmp: 1, other: 0, total: 3, tcpTimeWait: 0 });
  assert.deepEqual(per.get("198.18.1.12"), { tcp: 1, udp: 0, icmp: 0, other: 0, total: 1, tcpTimeWait: 1 });
  assert.deepEqual(per.get("198.18.1.13"), { tcp: 0, udp: 0, icmp: 0, other: 0, total: 0, tcpTimeWait: 0 });
});

test("ss addresses lose their port and brackets", () => {
  assert.equal(ssAddress("198.18.1.10:8080"), "198.18.1.10");
  assert.equal(ssAddress("[2001:db8::1]:8080"), "2001:db8::1");
  assert.equal(ssAddress("[::ffff:198.18.1.10]:8080"), "198.18.1.10");
});
