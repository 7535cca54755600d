import assert from "node:assert/strict";
import type { NetworkInterfaceInfo } from "node:os";
import { test } from "node:test";
import { testConfig } from "@svc/controller";
import {
  backoffDelay,
  capabilitiesFor,
  REGISTER_BACKOFF,
  registrationLabels,
  resolveAdvertiseAddress,
} from "./facts.ts";

function iface(address: string, family: "IPv4" | "IPv6", internal: boolean): NetworkInterfaceInfo {
  const base = { address, netmask: "", mac: "00:00:00:00:00:00", internal, cidr: null };
  return family === "IPv4" ? { ...base, family } : { ...base, family, scopeid: 0 };
}

const interfaces = {
  lo: [iface("127.0.0.1", "IPv4", true), iface("::1", "IPv6", true)],
  eth0: [iface("fd00:198:18::5", "IPv6", false), iface("198.18.0.5", "IPv4", false)],
  eth1: [iface("198.18.1.5", "IPv4", false)],
};

test("advertise address: config, then SVC_POD_IP, then first non-internal IPv4", () => {
  assert.equal(
    resolveAdvertiseAddress({ configured: "198.18.9.9", env: { SVC_POD_IP: "198.18.8.8" }, interfaces }),
    "198.18.9.9",
  );
  assert.equal(
    resolveAdvertiseAddress({ configured: "", env: { SVC_POD_IP: "198.18.8.8" }, interfaces }),
    "198.18.8.8",
  );
  assert.equal(resolveAdvertiseAddress({ configured: "", env: {}, interfaces }), "198.18.0.5");
});

test("advertise address: refused kinds throw naming the key; loopback only when allowed", () => {
  for (const bad of ["0.0.0.0", "127.0.0.1", "224.0.0.1", "255.255.255.255", "::", "node-a"]) {
    assert.throws(
      () => resolveAdvertiseAddress({ configured: bad, env: {}, interfaces }),
      /agent\.advertiseAddress/,
    );
  }
  assert.throws(
    () => resolveAdvertiseAddress({ configured: "", env: {}, interfaces: { lo: interfaces.lo } }),
    /no non-internal/,
  );
  assert.equal(
    resolveAdvertiseAddress({
      configured: "",
      env: { SVC_POD_IP: "127.0.0.1" },
      interfaces,
      allowLoopback: true,
    }),
    "127.0.0.1",
  );
});

test("labels: external outside a pod, host-network when flagged", () => {
  assert.deepEqual(registrationLabels({}), { "svc.io/external": "true" });
  assert.deepEqual(registrationLabels({ SVC_POD_NAME: "svc-agent-x" }), {});
  assert.deepEqual(registrationLabels({ SVC_POD_NAME: "svc-agent-x", SVC_HOST_NETWORK: "true" }), {
    "svc.io/host-network": "true",
  });
});

test("capabilities: one plane per enabled checker, mtr always, external-checks when enabled", () => {
  const c = testConfig().checkers;
  assert.deepEqual(capabilitiesFor(c), [
    "plane:tcp",
    "plane:udp",
    "plane:icmp",
    "plane:pmtu",
    "plane:dns",
    "plane:mtr",
  ]);
  const off = {
    ...c,
    tcp: { ...c.tcp, enabled: false },
    udp: { ...c.udp, enabled: false },
    icmp: { ...c.icmp, enabled: false },
    pmtu: { ...c.pmtu, enabled: false },
    dns: { ...c.dns, enabled: false },
    http: { ...c.http, enabled: true },
    external: { ...c.external, enabled: true },
  };
  assert.deepEqual(capabilitiesFor(off), ["plane:http", "plane:mtr", "external-checks"]);
});

test("backoff: 2 s doubling to 30 s, up to 25% jitter taken off", () => {
  const none = () => 0;
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 20].map((n) => backoffDelay(n, REGISTER_BACKOFF, none)),
    [2000, 4000, 8000, 16000, 30000, 30000, 30000],
  );
  assert.equal(
    backoffDelay(0, REGISTER_BACKOFF, () => 0.999999),
    1500,
  );
  assert.equal(
    backoffDelay(10, REGISTER_BACKOFF, () => 0.5),
    26250,
  );
});
