import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionRecord } from "../store/store.ts";
import { type SessionBackend, SessionManager, touchInterval } from "./sessions.ts";

/** A SessionBackend in a Map, counting idle-stamp writes. */
function memoryBackend(): SessionBackend & { touches: number } {
  const rows = new Map<string, SessionRecord>();
  return {
    touches: 0,
    async createSession(s) {
      rows.set(s.idHash, { ...s });
    },
    async getSession(idHash) {
      const r = rows.get(idHash);
      return r ? { ...r } : undefined;
    },
    async touchSession(idHash, lastSeenAt) {
      this.touches++;
      const r = rows.get(idHash);
      if (r) r.lastSeenAt = Math.max(r.lastSeenAt, lastSeenAt);
    },
    async deleteSession(idHash) {
      return rows.delete(idHash);
    },
    async deleteSessionsOf() {
      return 0;
    },
    async purgeSessions() {
      return 0;
    },
    async updateSession() {},
  };
}

test("the idle stamp interval is 15 s, or a third of a shorter idle timeout", () => {
  assert.equal(touchInterval(0), 15_000);
  assert.equal(touchInterval(3_600_000), 15_000);
  assert.equal(touchInterval(45_000), 15_000);
  assert.equal(touchInterval(30_000), 10_000);
  assert.equal(touchInterval(1_000), 333);
});

for (const idleMs of [1_000, 2_000, 5_000, 14_000, 15_000, 20_000, 60_000]) {
  test(`a session used more often than its ${idleMs} ms idle timeout stays; idle past it, it ends`, async () => {
    let t = Date.UTC(2026, 0, 1);
    const backend = memoryBackend();
    const sessions = new SessionManager(backend, { ttlMs: 24 * 3_600_000, idleMs }, () => t);
    const { id } = await sessions.create("local:u", "u", []);
    // requests every 90% of the idle timeout, for 40 idle timeouts: each one slides the bound
    const step = Math.floor(idleMs * 0.9);
    for (let i = 0; i < 40; i++) {
      t += step;
      assert.equal((await sessions.lookup(id)).state, "active", `request ${i} at +${step} ms`);
    }
    assert.ok(backend.touches <= 40, "at most one stamp per request");
    t += idleMs;
    assert.equal((await sessions.lookup(id)).state, "expired");
  });
}

test("requests closer together than the stamp interval do not write", async () => {
  let t = 0;
  const backend = memoryBackend();
  const sessions = new SessionManager(backend, { ttlMs: 3_600_000, idleMs: 600_000 }, () => t);
  const { id } = await sessions.create("local:u", "u", []);
  for (let i = 0; i < 100; i++) {
    t += 1_000;
    await sessions.lookup(id);
  }
  // 100 s of requests a second apart: one write per 15 s
  assert.equal(backend.touches, 6);
});
