import assert from "node:assert/strict";
import { test } from "node:test";
import { absoluteName, probeDns } from "./dns.ts";
import { startDnsResponder } from "./testdata/dns-responder.ts";

test("dns probe resolves every host against every explicit resolver", async () => {
  const one = await startDnsResponder({ a: { "svc-api": "198.18.0.10", "db.example": "198.18.0.11" } });
  const two = await startDnsResponder({ a: { "svc-api": "198.18.0.20" } });
  try {
    const results = await probeDns({
      hosts: ["svc-api", "db.example."],
      resolvers: [`127.0.0.1:${one.port}`, `127.0.0.1:${two.port}`],
      timeoutMs: 1000,
    });
    assert.equal(results.length, 4);
    const get = (host: string, port: number) =>
      results.find((r) => r.host === host && r.resolver === `127.0.0.1:${port}`);
    assert.deepEqual(get("svc-api", one.port)?.addresses, ["198.18.0.10"]);
    assert.equal(get("svc-api", one.port)?.ok, true);
    assert.deepEqual(get("svc-api", two.port)?.addresses, ["198.18.0.20"]);
    assert.equal(get("db.example.", one.port)?.ok, true);
    const missing = get("db.example.", two.port);
    assert.equal(missing?.ok, false);
    assert.match(missing?.error ?? "", /ENOTFOUND/);
    // Absolute names: the single-label host was asked as-is, never with a search domain appended.
    assert.deepEqual(
      one.queries.filter((q) => q.name.startsWith("svc-api")).map((q) => q.name),
      ["svc-api"],
    );
  } finally {
    await one.close();
    await two.close();
  }
});

test("dns probe falls back to AAAA when a name has no A record", async () => {
  const r = await startDnsResponder({ aaaa: { "v6only.test": "fd00:198:18::5" } });
  try {
    const [res] = await probeDns({
      hosts: ["v6only.test"],
      resolvers: [`127.0.0.1:${r.port}`],
      timeoutMs: 1000,
    });
    assert.equal(res?.ok, true, res?.error);
    assert.deepEqual(res?.addresses, ["fd00:198:18::5"]);
    assert.deepEqual(
      r.queries.map((q) => q.type),
      [1, 28],
    );
  } finally {
    await r.close();
  }
});

test("dns probe times out against a silent resolver", async () => {
  const r = await startDnsResponder({ silent: ["slow.test"] });
  try {
    const [res] = await probeDns({
      hosts: ["slow.test"],
      resolvers: [`127.0.0.1:${r.port}`],
      timeoutMs: 150,
    });
    assert.equal(res?.ok, false);
    assert.ok(res?.error);
    assert.ok((res?.durationMs ?? 0) >= 100);
  } finally {
    await r.close();
  }
});

test("dns probe uses the system resolver when none is configured", async () => {
  const [res] = await probeDns({ hosts: ["localhost"], resolvers: [], timeoutMs: 2000 });
  assert.equal(res?.resolver, "system");
  assert.equal(res?.ok, true, res?.error);
  assert.ok(res?.addresses.some((a) => a === "127.0.0.1" || a === "::1"));
});

test("absolute names get exactly one trailing dot", () => {
  assert.equal(absoluteName("a.b"), "a.b.");
  assert.equal(absoluteName("a.b."), "a.b.");
});
