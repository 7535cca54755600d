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
