// The per-replica cache of identity and access (issue 36), in virtual time: how old an entry may be, what a
// revocation empties, and that a read under way when a revocation lands does not refill the cache with what it read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TestClock } from "../testing/harness.ts";
import { AuthCache, type TtlMap } from "./auth-cache.ts";

/** One of the cache's maps, for values of any type (the cache does not look into them). */
const users = (c: AuthCache): TtlMap<unknown> => c.users;

test("an entry is served until it is ttl old, then read again", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(500, clock.now);
  let reads = 0;
  const load = async () => `v${++reads}`;
  assert.equal(await cache.through(users(cache), "u1", load), "v1");
  clock.advance(499);
  assert.equal(await cache.through(users(cache), "u1", load), "v1", "499 ms old: still served");
  clock.advance(1);
  assert.equal(await cache.through(users(cache), "u1", load), "v2", "500 ms old: read again");
});

test("nothing is kept for what the store does not hold, and ttl 0 keeps nothing", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(500, clock.now);
  let reads = 0;
  const none = async () => {
    reads++;
    return undefined;
  };
  await cache.through(cache.tokens, "t", none);
  await cache.through(cache.tokens, "t", none);
  assert.equal(reads, 2);
  const off = new AuthCache(0, clock.now);
  let n = 0;
  await off.through(users(off), "u", async () => ++n);
  await off.through(users(off), "u", async () => ++n);
  assert.equal(n, 2);
});

test("revoke() empties every map and tells the listener; clear() empties without telling", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(60_000, clock.now);
  let told = 0;
  cache.onRevoke(() => told++);
  let reads = 0;
  const load = async (): Promise<unknown> => ++reads;
  const maps: TtlMap<unknown>[] = [cache.sessions, cache.users, cache.tokens, cache.access];
  for (const m of maps) await cache.through(m, "k", load);
  for (const m of maps) await cache.through(m, "k", load);
  assert.equal(reads, 4, "each map read once, then served");
  cache.revoke();
  assert.equal(told, 1);
  for (const m of maps) await cache.through(m, "k", load);
  assert.equal(reads, 8, "every map read again after the revocation");
  cache.clear();
  assert.equal(told, 1, "a revocation reported by another replica is not passed on again");
});

test("a read under way when a revocation lands is answered but not kept", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(60_000, clock.now);
  let release: (v: string) => void = () => {};
  const slow = cache.through(users(cache), "u", () => new Promise<string>((r) => (release = r)));
  cache.revoke();
  release("before the revocation");
  assert.equal(await slow, "before the revocation");
  assert.equal(await cache.through(users(cache), "u", async () => "after"), "after");
});

test("callers missing a key while its read runs share that read", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(500, clock.now);
  let reads = 0;
  let release: (v: string) => void = () => {};
  const load = () => {
    reads++;
    return new Promise<string>((r) => (release = r));
  };
  const waiting = Array.from({ length: 50 }, () => cache.through(users(cache), "u", load));
  release("v1");
  assert.deepEqual(new Set(await Promise.all(waiting)), new Set(["v1"]));
  assert.equal(reads, 1, "50 concurrent misses, one read");
  assert.equal(await cache.through(users(cache), "u", load), "v1", "and it is kept");
});

test("a caller asking after a revocation does not share a read started before it", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(60_000, clock.now);
  const releases: ((v: string) => void)[] = [];
  const load = () => new Promise<string>((r) => releases.push(r));
  const before = cache.through(users(cache), "u", load);
  cache.revoke();
  const after = cache.through(users(cache), "u", load);
  assert.equal(releases.length, 2, "the caller after the revocation reads again");
  releases[0]?.("old");
  releases[1]?.("new");
  assert.equal(await before, "old");
  assert.equal(await after, "new");
  assert.equal(await cache.through(users(cache), "u", load), "new");
});

test("a failed read is shared by its callers and not kept", async () => {
  const clock = new TestClock();
  const cache = new AuthCache(500, clock.now);
  let reads = 0;
  const failing = async (): Promise<string> => {
    reads++;
    throw new Error("store down");
  };
  const both = [cache.through(users(cache), "u", failing), cache.through(users(cache), "u", failing)];
  for (const p of both) await assert.rejects(p, /store down/);
  assert.equal(reads, 1);
  assert.equal(await cache.through(users(cache), "u", async () => "up"), "up");
});
