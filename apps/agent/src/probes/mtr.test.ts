import assert from "node:assert/strict";
import { test } from "node:test";
import { probeMtr } from "./mtr.ts";

test("a trace to loopback is one hop: the destination, with its RTT and no loss (IPv4 and IPv6)", async () => {
  for (const address of ["127.0.0.1", "::1"]) {
    const r = await probeMtr({ address, maxHops: 5, rounds: 3, intervalMs: 10, timeoutMs: 500 });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.target, address);
    assert.equal(r.hops.length, 1);
    const [hop] = r.hops;
    assert.equal(hop?.number, 1);
    assert.equal(hop?.ip, address);
    assert.equal(hop?.lossRatio, 0);
    assert.ok(Number.isInteger(hop?.rtt) && (hop?.rtt ?? 0) > 0, `rtt ${hop?.rtt} is a positive ns integer`);
  }
});

test("a bad address is a failed trace, not an exception", async () => {
  const r = await probeMtr({ address: "nowhere", maxHops: 3 });
  assert.deepEqual(r, { target: "nowhere", hops: [], ok: false, error: "not an IP address: nowhere" });
});

test("aborting a long trace ends it with what it saw so far", async () => {
  const ac = new AbortController();
  const run = probeMtr({
    address: "127.0.0.1",
    maxHops: 3,
    rounds: 1000,
    intervalMs: 1000,
    timeoutMs: 500,
    signal: ac.signal,
  });
  setTimeout(() => ac.abort(), 100);
  const r = await run;
  assert.equal(r.ok, true);
  assert.deepEqual(
    r.hops.map((h) => [h.number, h.ip, h.lossRatio]),
    [[1, "127.0.0.1", 0]],
  );
});
