import assert from "node:assert/strict";
import { test } from "node:test";
import { addressBudgetKey, clientAddress, parseCidrs } from "./client-address.ts";

const proxies = parseCidrs(["10.0.0.0/8", "fd00::/8"]);

test("the TCP peer is the client unless it is a trusted proxy", () => {
  assert.equal(clientAddress("192.0.2.7", "198.51.100.1", proxies), "192.0.2.7");
  assert.equal(clientAddress("::ffff:192.0.2.7", undefined, proxies), "192.0.2.7");
});

test("X-Forwarded-For is walked from the right past trusted proxies, all lines as one list", () => {
  assert.equal(clientAddress("10.0.0.1", "203.0.113.9, 198.51.100.1, 10.1.1.1", proxies), "198.51.100.1");
  assert.equal(clientAddress("10.0.0.1", ["203.0.113.9", "198.51.100.1, 10.1.1.1"], proxies), "198.51.100.1");
  // every hop trusted: the leftmost one is the best we know
  assert.equal(clientAddress("10.0.0.1", "10.2.2.2, 10.1.1.1", proxies), "10.2.2.2");
});

test("a non-IP hop stops the walk at the last good address", () => {
  assert.equal(clientAddress("10.0.0.1", "198.51.100.1, unknown, 10.1.1.1", proxies), "10.1.1.1");
  assert.equal(clientAddress("10.0.0.1", "garbage", proxies), "10.0.0.1");
});

test("IPv6 clients are budgeted per /64", () => {
  assert.equal(addressBudgetKey("2001:db8:1:2::1"), addressBudgetKey("2001:db8:1:2:ffff::9"));
  assert.notEqual(addressBudgetKey("2001:db8:1:2::1"), addressBudgetKey("2001:db8:1:3::1"));
  assert.equal(addressBudgetKey("192.0.2.1"), "192.0.2.1");
});
