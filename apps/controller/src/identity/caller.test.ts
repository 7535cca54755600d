import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalIp, certificateIdentity, inCidrs, peerIp } from "./caller.ts";

test("the source IP of every peer spelling grpc-js uses, IPv4-mapped addresses as IPv4", () => {
  const cases: [string, string][] = [
    ["127.0.0.1:43210", "127.0.0.1"],
    ["::ffff:127.0.0.1:43210", "127.0.0.1"],
    ["::1:43210", "::1"],
    ["[::1]:43210", "::1"],
    ["ipv4:198.18.0.4:1", "198.18.0.4"],
    ["ipv6:[fd00::0001]:1", "fd00::1"],
    ["2001:DB8::5:9090", "2001:db8::5"],
    ["unix:/tmp/sock", ""],
  ];
  for (const [peer, ip] of cases) assert.equal(peerIp(peer), ip, peer);
});

test("one spelling per address; CIDR membership; certificate identities ignore case and order", () => {
  assert.equal(canonicalIp("::FFFF:198.18.0.1"), "198.18.0.1");
  assert.equal(canonicalIp("fd00:0:0::1"), "fd00::1");
  assert.equal(canonicalIp("node-1"), "");
  assert.ok(inCidrs("198.18.3.4", ["10.0.0.0/8", "198.18.0.0/15"]));
  assert.ok(!inCidrs("", ["0.0.0.0/0"]));
  assert.equal(
    certificateIdentity(["Edge-1", "edge-1.example"], "").key,
    certificateIdentity(["edge-1.example", "EDGE-1"], "").key,
  );
});
