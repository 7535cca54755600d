import assert from "node:assert/strict";
import { test } from "node:test";
import { WarmUp } from "./warm-up.ts";

test("warm-up: from start for one TTL; with an inventory it ends once every expected agent is back", () => {
  let now = 1000;
  let ttl = 30_000;
  const w = new WarmUp({ ttlMs: () => ttl, now: () => now });
  assert.equal(w.active(0, undefined), true, "before the listener opened");
  w.begin();
  assert.equal(w.active(5, undefined), true, "without an inventory only time ends it");
  assert.equal(w.active(2, 3), true, "an agent the inventory expects is missing");
  assert.equal(w.active(3, 3), false, "all expected agents registered");
  assert.equal(w.active(0, 0), true, "an inventory that expects nobody yet cannot end it");
  now += 29_999;
  assert.equal(w.active(0, undefined), true);
  now += 1;
  assert.equal(w.active(0, undefined), false);
  assert.equal(w.active(0, 3), false, "after the TTL a missing agent is news");
  ttl = 60_000;
  assert.equal(w.active(0, undefined), true, "a longer TTL applied live extends it");
});
