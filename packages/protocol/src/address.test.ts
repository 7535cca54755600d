import assert from "node:assert/strict";
import { test } from "node:test";
import { advertiseAddressProblem } from "./address.ts";

test("acceptable advertise addresses", () => {
  for (const a of [
    "198.18.0.1",
    "10.1.2.3",
    "fd00:198:18::1",
    "2001:db8::5",
    "::ffff:198.18.0.2",
    "169.253.0.1",
    "fec0::1",
  ]) {
    assert.equal(advertiseAddressProblem(a), undefined, a);
  }
});

test("refused advertise addresses name the reason", () => {
  const cases: [string, string][] = [
    ["node-1", "not an IP literal"],
    ["198.18.0.1:80", "not an IP literal"],
    ["", "not an IP literal"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["::ffff:169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["127.0.0.1", "loopback"],
    ["127.9.9.9", "loopback"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
  ];
  for (const [addr, reason] of cases) assert.equal(advertiseAddressProblem(addr), reason, addr);
});

test("an IPv6 spelling of a refused IPv4 address is refused as that address (issue 33)", () => {
  const cases: [string, string][] = [
    // IPv4-compatible (deprecated ::a.b.c.d)
    ["::127.0.0.1", "loopback"],
    ["::7f00:1", "loopback"],
    ["::169.254.169.254", "link-local"],
    ["::255.255.255.255", "broadcast"],
    ["::224.0.0.1", "multicast"],
    // IPv4-mapped, in both spellings
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:127.0.0.1", "loopback"],
    // IPv4-translated (RFC 2765)
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::ffff:0:7f00:1", "loopback"],
    ["::ffff:0:169.254.169.254", "link-local"],
    // NAT64 well-known prefix 64:ff9b::/96
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b::0.0.0.0", "unspecified"],
    // 6to4 2002:AABB:CCDD::/48
    ["2002:7f00:1::", "loopback"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:a9fe:a9fe::5", "link-local"],
    ["2002:e000:1::", "multicast"],
    ["2002:ffff:ffff::", "broadcast"],
  ];
  for (const [addr, reason] of cases) assert.equal(advertiseAddressProblem(addr), reason, addr);
  // NAT64 local-use 64:ff9b:1::/48: the translator's prefix length (/48 to /96) is not known, so an address is
  // refused when any RFC 6052 reading of it is (127.0.0.1 at /48, /64 and /96)
  for (const a of ["64:ff9b:1:7f00:0:100::", "64:ff9b:1:0:7f:0:100::", "64:ff9b:1::7f00:1"])
    assert.notEqual(advertiseAddressProblem(a), undefined, a);
  // the same forms of an acceptable address stay acceptable
  for (const a of ["::ffff:0:198.18.0.2", "64:ff9b::198.18.0.2", "2002:c612:2::1"])
    assert.equal(advertiseAddressProblem(a), undefined, a);
});

test("directed broadcasts are refused for the prefixes known on the path; 255.255.255.255 always", () => {
  const rules = { knownPrefixes: ["198.18.3.0/24", "10.0.0.0/8", "198.18.9.4/31", "fd00::/64", "bad"] };
  assert.equal(advertiseAddressProblem("198.18.3.255", rules), "broadcast");
  assert.equal(advertiseAddressProblem("::ffff:198.18.3.255", rules), "broadcast");
  assert.equal(advertiseAddressProblem("2002:c612:3ff::", rules), "broadcast");
  assert.equal(advertiseAddressProblem("10.255.255.255", rules), "broadcast");
  assert.equal(advertiseAddressProblem("198.18.3.254", rules), undefined);
  // a /31 has no broadcast (RFC 3021); an unknown prefix's all-ones host is not known to be one
  assert.equal(advertiseAddressProblem("198.18.9.5", rules), undefined);
  assert.equal(advertiseAddressProblem("198.18.4.255", rules), undefined);
  assert.equal(advertiseAddressProblem("198.18.3.255"), undefined);
  assert.equal(advertiseAddressProblem("255.255.255.255"), "broadcast");
});
