import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration, parseDuration } from "./duration.ts";
import { cidrContains, isIpLiteral, parseCidr, parseIpEndpoint, unusableAddressReason } from "./net.ts";

test("parseDuration reads Go durations and refuses numbers without a unit", () => {
  const cases: [string, number | undefined][] = [
    ["5s", 5000],
    ["250ms", 250],
    ["1m30s", 90_000],
    ["2h", 7_200_000],
    ["1.5s", 1500],
    ["500us", 0.5],
    ["0", 0],
    ["0s", 0],
    ["5", undefined],
    ["-5s", undefined],
    ["5 s", undefined],
    ["s", undefined],
    ["", undefined],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test("formatDuration writes the shortest Go form", () => {
  assert.equal(formatDuration(90_000), "1m30s");
  assert.equal(formatDuration(250), "250ms");
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(3_600_000), "1h");
});

test("parseCidr requires a prefix and parses both families", () => {
  assert.deepEqual(parseCidr("10.1.2.3/8"), {
    family: 4,
    network: 0x0a000000n,
    prefix: 8,
    text: "10.1.2.3/8",
  });
  assert.equal(parseCidr("fd00:198:18::/64")?.prefix, 64);
  assert.equal(parseCidr("::/0")?.network, 0n);
  for (const bad of [
    "10.0.0.0",
    "10.0.0.0/33",
    "fd00::/129",
    "300.0.0.0/8",
    "x/8",
    "10.0.0.0/-1",
    "10.0.0.0/",
  ]) {
    assert.equal(parseCidr(bad), undefined, bad);
  }
});

test("cidrContains matches addresses of the same family only", () => {
  assert.equal(cidrContains("198.18.0.0/15", "198.19.255.255"), true);
  assert.equal(cidrContains("198.18.0.0/15", "198.20.0.0"), false);
  assert.equal(cidrContains("fd00:198:18::/64", "fd00:198:18::7"), true);
  assert.equal(cidrContains("fd00:198:18::/64", "fd00:198:19::7"), false);
  assert.equal(cidrContains("0.0.0.0/0", "::1"), false);
  assert.equal(cidrContains("::ffff:0:0/96", "::ffff:10.0.0.1"), true);
});

test("unusableAddressReason classifies addresses that cannot be advertised", () => {
  assert.equal(isIpLiteral("10.0.0.1"), true);
  assert.equal(isIpLiteral("[::1]"), false);
  const cases: [string, string | undefined][] = [
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["127.0.0.5", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["198.18.0.1", undefined],
    ["fd00:198:18::1", undefined],
    ["node-a", "not an IP literal"],
  ];
  for (const [ip, why] of cases) assert.equal(unusableAddressReason(ip), why, ip);
});

test("parseIpEndpoint accepts ip, ip:port and [v6]:port", () => {
  assert.deepEqual(parseIpEndpoint("10.0.0.10", 53), { host: "10.0.0.10", port: 53 });
  assert.deepEqual(parseIpEndpoint("10.0.0.10:5353", 53), { host: "10.0.0.10", port: 5353 });
  assert.deepEqual(parseIpEndpoint("fd00::53", 53), { host: "fd00::53", port: 53 });
  assert.deepEqual(parseIpEndpoint("[fd00::53]:54", 53), { host: "fd00::53", port: 54 });
  assert.ok("error" in parseIpEndpoint("10.0.0.10:0", 53));
  assert.ok("error" in parseIpEndpoint("[fd00::53]:65536", 53));
  assert.ok("error" in parseIpEndpoint("dns.google:53", 53));
  assert.ok("error" in parseIpEndpoint("[10.0.0.1]:53", 53));
});
