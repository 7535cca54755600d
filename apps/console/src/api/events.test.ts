/**
 * GET /api/v1/events on PGlite and PostgreSQL: newest first, keyset cursor pages, filters (scope substring with
 * pair spellings normalised, type, severity, until), 400 for a bad cursor or filter changing nothing, 503 without a
 * database; an event stored twice (a replay) is one row; GET /api/v1/k8s-events without the watcher.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FeedEvent } from "@svc/contract";
import { EventStore, type NewEvent } from "../events/event-store.ts";
import { summarize } from "../events/summary.ts";
import type { ConsoleServer } from "../server.ts";
import { migrate } from "../store/migrations.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole } from "../testing/harness.ts";

let dbs: EachDb;
before(async () => {
  dbs = await eachDb();
});
after(async () => {
  await dbs.close();
});

const T0 = Date.UTC(2026, 5, 1, 12);

function ev(i: number, over: Partial<NewEvent> = {}): NewEvent {
  const type = over.type ?? "CheckObserved";
  const scope = over.scope ?? "node-1->node-2";
  const payload = over.payload ?? { type: "tcp", success: i % 2 === 0 };
  return {
    topic: "checks",
    seq: i,
    atNs: BigInt(T0 + i * 1000) * 1_000_000n,
    at: T0 + i * 1000,
    type,
    severity: "info",
    scope,
    summary: summarize(type, scope, payload),
    payload,
    receivedAt: T0 + i * 1000,
    ...over,
  };
}

async function get(s: ConsoleServer, query: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${s.httpUrl}/api/v1/events${query}`);
  return { status: res.status, body: await res.json() };
}

type Page = { events: FeedEvent[]; nextCursor: string | null };

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: history newest first, cursor pages, filters; bad input 400 and nothing changes`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const db = await b.fresh();
    await migrate(db);
    const store = new EventStore(db);
    // 1..6 checks on node-1->node-2, 7 a topology change of node-3 (warn), 8 an unknown severity, 9 same instant as 8
    for (let i = 1; i <= 6; i++) await store.insert(ev(i));
    await store.insert(
      ev(7, {
        topic: "topology",
        type: "TopologyChanged",
        severity: "warn",
        scope: "Node-3",
        payload: { change: "agent-left", reason: "evicted" },
      }),
    );
    await store.insert(ev(8, { severity: "critical", scope: "node-2->node-1" }));
    await store.insert(ev(9, { at: T0 + 8000, atNs: BigInt(T0 + 8000) * 1_000_000n + 1n }));
    // a replayed event is stored once
    const again = await store.insert(ev(3));
    const s = await startConsole("", { db });
    try {
      const all = (await get(s, "?limit=200")).body as Page;
      assert.equal(all.events.length, 9);
      assert.equal(all.nextCursor, null);
      const times = all.events.map((e) => Date.parse(e.at));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => y - x),
        "newest first",
      );
      assert.equal(all.events.filter((e) => e.id === again.id).length, 1);
      const topo = all.events.find((e) => e.type === "TopologyChanged");
      assert.equal(topo?.summary, "Topology changed: agent-left Node-3 (evicted)");
      assert.equal(
        all.events.find((e) => e.severity === "critical")?.scope,
        "node-2->node-1",
        "raw severity kept",
      );

      // pages of 2 through the cursor: the same rows, in the same order, each once
      const paged: FeedEvent[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 10; n++) {
        const page = (await get(s, `?limit=2${cursor ? `&before=${cursor}` : ""}`)).body as Page;
        paged.push(...page.events);
        cursor = page.nextCursor;
        if (cursor === null) break;
        assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      }
      assert.deepEqual(
        paged.map((e) => e.id),
        all.events.map((e) => e.id),
      );

      const ids = async (q: string) => ((await get(s, q)).body as Page).events.map((e) => e.id);
      const scoped = all.events.filter((e) => e.scope === "node-1->node-2").map((e) => e.id);
      for (const spelling of ["node-1->node-2", "NODE-1 => node-2", "node-1 > node-2", " Node-1->NODE-2 "])
        assert.deepEqual(await ids(`?scope=${encodeURIComponent(spelling)}`), scoped, spelling);
      assert.equal((await ids("?scope=node-3")).length, 1, "case-insensitive");
      assert.equal((await ids("?scope=node-")).length, 9, "substring");
      assert.deepEqual(await ids("?type=TopologyChanged"), [topo?.id]);
      assert.deepEqual(await ids("?severity=warn"), [topo?.id]);
      assert.equal((await ids("?severity=info")).length, 7);
      assert.deepEqual(
        await ids(`?until=${encodeURIComponent(new Date(T0 + 2000).toISOString())}`),
        all.events.filter((e) => Date.parse(e.at) <= T0 + 2000).map((e) => e.id),
      );
      assert.equal((await ids("?type=CheckObserved&severity=info&scope=node-2&limit=3")).length, 3);

      const [before] = await db.query("SELECT count(*) AS n FROM events");
      const forged = Buffer.from("123:abc").toString("base64url");
      for (const q of [
        "?before=not%20a%20cursor",
        `?before=${forged}`,
        `?before=${Buffer.from("12:0").toString("base64url")}`,
        "?type=Nope",
        "?severity=fatal",
        "?limit=0",
        "?limit=201",
        "?until=yesterday",
        `?scope=${"x".repeat(513)}`,
      ]) {
        const r = await get(s, q);
        assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
        assert.equal((r.body as { error: { code: string } }).error.code, "invalid_input", q);
      }
      const [afterRows] = await db.query("SELECT count(*) AS n FROM events");
      assert.equal(Number(afterRows?.n), Number(before?.n));
    } finally {
      await s.stop();
    }
  });
}

test("without a database: events 503, cluster events answer enabled false", async () => {
  const s = await startConsole("");
  try {
    const r = await get(s, "");
    assert.equal(r.status, 503);
    assert.equal((r.body as { error: { code: string } }).error.code, "unavailable");
    const k = await fetch(`${s.httpUrl}/api/v1/k8s-events`);
    assert.equal(k.status, 200);
    assert.deepEqual(await k.json(), { enabled: false, events: [], truncated: false });
    const bad = await fetch(
      `${s.httpUrl}/api/v1/k8s-events?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`,
    );
    assert.equal(bad.status, 400);
  } finally {
    await s.stop();
  }
});
