import assert from "node:assert/strict";
import { test } from "node:test";
import { SourceRateLimiter } from "./rate-limiter.ts";

test("burst 256 then 64 per second per source", () => {
  let now = 0;
  const rl = new SourceRateLimiter({ now: () => now });
  let allowed = 0;
  for (let i = 0; i < 300; i++) if (rl.allow("10.0.0.1:5000")) allowed++;
  assert.equal(allowed, 256);
  assert.equal(rl.allow("10.0.0.2:5000"), true, "other sources have their own bucket");
  now += 500; // 32 tokens
  allowed = 0;
  for (let i = 0; i < 100; i++) if (rl.allow("10.0.0.1:5000")) allowed++;
  assert.equal(allowed, 32);
  now += 60_000;
  allowed = 0;
  for (let i = 0; i < 300; i++) if (rl.allow("10.0.0.1:5000")) allowed++;
  assert.equal(allowed, 256, "refill is capped at the burst");
});

test("tracks at most maxSources, forgetting the least recently seen", () => {
  const rl = new SourceRateLimiter({ burst: 1, maxSources: 3, now: () => 0 });
  for (const k of ["a", "b", "c"]) assert.equal(rl.allow(k), true);
  assert.equal(rl.allow("a"), false, "a is exhausted and now the most recent");
  assert.equal(rl.allow("d"), true);
  assert.equal(rl.size, 3);
  assert.equal(rl.allow("b"), true, "b was least recently seen, so it was forgotten and starts full");
  assert.equal(rl.allow("a"), false, "a stayed tracked");
});
