import assert from "node:assert/strict";
import { test } from "node:test";
import { isLoopback, isMulticast, localAddresses, subnetBroadcast } from "./local-addresses.ts";

test("subnet broadcast addresses, none for /31 and /32", () => {
  assert.equal(subnetBroadcast("198.18.77.1", "255.255.255.0"), "198.18.77.255");
  assert.equal(subnetBroadcast("198.18.4.9", "255.255.252.0"), "198.18.7.255");
  assert.equal(subnetBroadcast("198.18.0.1", "255.255.255.254"), undefined);
  assert.equal(subnetBroadcast("198.18.0.1", "255.255.255.255"), undefined);
});

test("local address set from an interface table", () => {
  const set = localAddresses({
    eth0: [
      {
        address: "198.18.9.5",
        netmask: "255.255.255.0",
        family: "IPv4",
        mac: "",
        internal: false,
        cidr: null,
      },
      {
        address: "fe80::1",
        netmask: "ffff:ffff:ffff:ffff::",
        family: "IPv6",
        mac: "",
        internal: false,
        cidr: null,
        scopeid: 2,
      },
    ],
  });
  assert.deepEqual([...set.own].sort(), ["198.18.9.5", "fe80::1"]);
  assert.deepEqual([...set.broadcast], ["198.18.9.255"]);
});

test("multicast and loopback classification", () => {
  assert.ok(isMulticast("224.0.0.1") && isMulticast("239.255.255.255") && isMulticast("ff02::1"));
  assert.ok(!isMulticast("240.0.0.1") && !isMulticast("fe80::1") && !isMulticast("198.18.0.1"));
  assert.ok(isLoopback("127.0.0.5") && isLoopback("::1") && !isLoopback("198.18.0.1"));
});
