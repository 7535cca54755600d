import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionRecord } from "../store/store.ts";
import { hashSessionId, idleBound, type SessionBackend, SessionManager, touchInterval } from "./sessions.ts";

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
  assert.equal(idleBound(0), 0);
  assert.equal(idleBound(1_000), 1_333);
  assert.equal(idleBound(30_000), 40_000);
  assert.equal(idleBound(3_600_000), 3_615_000);
});

/** Deterministic gaps in [1, max] ms (a small LCG: the same uneven sequence every run). */
function* unevenGaps(max: number, seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield 1 + (x % max);
  }
}

for (const idleMs of [1_000, 30_000]) {
  test(`at idle ${idleMs} ms, uneven gaps each shorter than the timeout never end the session; unused it ends within idle + g`, async () => {
    const g = touchInterval(idleMs);
    let t = Date.UTC(2026, 0, 1);
    const backend = memoryBackend();
    // two replicas over one store: each request goes to the other one, so nothing rests on a replica's memory
    const replicas: [SessionManager, SessionManager] = [
      new SessionManager(backend, { ttlMs: 24 * 3_600_000, idleMs }, () => t),
      new SessionManager(backend, { ttlMs: 24 * 3_600_000, idleMs }, () => t),
    ];
    const { id, record } = await replicas[0].create("local:u", "u", []);
    const use = async (gap: number, i: number, what: string) => {
      t += gap;
      const r = await (i % 2 === 0 ? replicas[0] : replicas[1]).lookup(id);
      assert.equal(r.state, "active", `${what}: +${gap} ms at ${t - record.createdAt} ms`);
    };
    // the cases the audit found: just under the stamp interval, then most of the timeout
    await use(g - 1, 0, "just under the stamp interval");
    await use(idleMs - 100, 1, "most of the timeout after it");
    // just past a stamp, then just under the timeout
    await use(g, 0, "at the stamp interval");
    await use(idleMs - 1, 1, "just under the timeout");
    // and 400 uneven gaps, each shorter than the timeout
    let i = 0;
    for (const gap of unevenGaps(idleMs - 1, idleMs)) {
      if (i === 400) break;
      await use(gap, i++, `uneven request ${i}`);
    }
    const last = t;
    // unused: alive (which never slides) up to the timeout after the last request, gone by idle + g
    t = last + idleMs - 1;
    assert.equal(await replicas[0].alive(record.idHash), true, "alive just under the timeout");
    t = last + idleBound(idleMs);
    assert.equal(await replicas[1].alive(record.idHash), false, "ended by idle + g after the last request");
    assert.equal((await replicas[1].lookup(id)).state, "expired");
  });
}

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
    const last = t;
    t = last + idleMs - 1;
    assert.equal(await sessions.alive(hashSessionId(id)), true, "alive just under the timeout");
    t = last + idleBound(idleMs);
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
