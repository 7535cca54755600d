/**
 * Annotations on PGlite and PostgreSQL: create / list (window overlap, scope substring) / update / delete, each
 * write with its `allowed` audit row; 422 for an empty text and a span that does not end after it starts, 400 for
 * a malformed body, 404 for an unknown id, 403 for a reader, 503 without a database; refusals change nothing.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Annotation } from "@svc/contract";
import type { ConsoleServer } from "../server.ts";
import { SqlStore } from "../store/sql-store.ts";
import { type EachDb, eachDb } from "../testing/each-db.ts";
import { startConsole, TestClock } from "../testing/harness.ts";
import { snapshot } from "../testing/store-snapshot.ts";

let dbs: EachDb;
before(async () => {
  dbs = await eachDb();
});
after(async () => {
  await dbs.close();
});

async function call(s: ConsoleServer, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.httpUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

const code = (b: unknown) => (b as { error: { code: string } }).error.code;

for (const kind of ["pglite", "postgres"] as const) {
  test(`${kind}: annotations CRUD, audited; 422, 400, 404, 403 change nothing`, async (t) => {
    const b = dbs.backends.find((x) => x.kind === kind);
    if (!b) return t.skip(String(dbs.skipped));
    const db = await b.fresh();
    const clock = new TestClock(Date.UTC(2026, 2, 1));
    const s = await startConsole("auth:\n  anonymous:\n    role: operator\n", { db, clock });
    await s.whenReady();
    const store = new SqlStore(db);
    try {
      const point = await call(s, "POST", "/api/v1/annotations", {
        at: "2026-02-01T10:00:00Z",
        text: "deployed v2\nwith a note",
        scope: "node-1 => node-2",
      });
      assert.equal(point.status, 201, JSON.stringify(point.body));
      const p = point.body as Annotation;
      assert.equal(p.endAt, null);
      assert.equal(p.scope, "node-1->node-2");
      assert.equal(p.author, "anonymous");
      assert.equal(p.createdAt, new Date(clock.t).toISOString());
      const span = (
        await call(s, "POST", "/api/v1/annotations", {
          at: "2026-02-01T12:00:00Z",
          endAt: "2026-02-01T14:00:00+00:00",
          text: "maintenance window",
        })
      ).body as Annotation;
      assert.equal(span.endAt, "2026-02-01T14:00:00.000Z");
      assert.equal(span.scope, "");

      const list = async (q = "") =>
        (
          (await call(s, "GET", `/api/v1/annotations${q}`)).body as { annotations: Annotation[] }
        ).annotations.map((a) => a.id);
      assert.deepEqual(await list(), [span.id, p.id], "newest first");
      assert.deepEqual(await list("?from=2026-02-01T13:00:00Z"), [span.id], "a span overlapping the window");
      assert.deepEqual(await list("?to=2026-02-01T11:00:00Z"), [p.id]);
      assert.deepEqual(await list("?scope=NODE-1%20%3E%20node-2"), [p.id], "pair spellings alike");
      assert.equal(
        (await call(s, "GET", "/api/v1/annotations?from=2026-02-02T00:00:00Z&to=2026-02-01T00:00:00Z"))
          .status,
        400,
      );

      clock.advance(60_000);
      const edited = await call(s, "PUT", `/api/v1/annotations/${p.id}`, {
        at: "2026-02-01T10:30:00Z",
        endAt: "2026-02-01T11:00:00Z",
        text: "deployed v2 (rolled back)",
        scope: "node-1",
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal((edited.body as Annotation).updatedAt, new Date(clock.t).toISOString());
      assert.equal((edited.body as Annotation).createdAt, p.createdAt);

      const before = await snapshot(db);
      const refusals: [string, string, unknown, number, string][] = [
        ["POST", "/api/v1/annotations", { at: "2026-02-01T10:00:00Z", text: "" }, 422, "unprocessable"],
        ["POST", "/api/v1/annotations", { at: "2026-02-01T10:00:00Z", text: "  \n " }, 422, "unprocessable"],
        [
          "POST",
          "/api/v1/annotations",
          { at: "2026-02-01T10:00:00Z", endAt: "2026-02-01T10:00:00Z", text: "x" },
          422,
          "unprocessable",
        ],
        [
          "PUT",
          `/api/v1/annotations/${span.id}`,
          { at: "2026-02-01T10:00:00Z", endAt: "2026-02-01T09:00:00Z", text: "x" },
          422,
          "unprocessable",
        ],
        ["POST", "/api/v1/annotations", { at: "yesterday", text: "x" }, 400, "invalid_input"],
        [
          "POST",
          "/api/v1/annotations",
          { at: "2026-02-01T10:00:00Z", text: "x", extra: 1 },
          400,
          "invalid_input",
        ],
        [
          "POST",
          "/api/v1/annotations",
          { at: "2026-02-01T10:00:00Z", text: "bell\u0007" },
          400,
          "invalid_input",
        ],
        [
          "POST",
          "/api/v1/annotations",
          { at: "2026-02-01T10:00:00Z", text: "x".repeat(4097) },
          400,
          "invalid_input",
        ],
        [
          "PUT",
          "/api/v1/annotations/no-such-id",
          { at: "2026-02-01T10:00:00Z", text: "x" },
          404,
          "not_found",
        ],
        ["DELETE", "/api/v1/annotations/no-such-id", undefined, 404, "not_found"],
      ];
      for (const [method, path, body, status, errorCode] of refusals) {
        const r = await call(s, method, path, body);
        assert.equal(
          r.status,
          status,
          `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`,
        );
        assert.equal(code(r.body), errorCode);
      }
      assert.deepEqual(await snapshot(db), before, "refusals changed nothing");

      assert.equal((await call(s, "DELETE", `/api/v1/annotations/${span.id}`)).status, 204);
      assert.deepEqual(await list(), [p.id]);

      const rows = (await store.listAudit(100)).filter((r) => r.action.includes("/api/v1/annotations"));
      assert.deepEqual(
        rows.map((r) => `${r.action} ${r.outcome} ${String(r.detail.annotationId)}`),
        [
          `DELETE /api/v1/annotations/:id allowed ${span.id}`,
          `PUT /api/v1/annotations/:id allowed ${p.id}`,
          `POST /api/v1/annotations allowed ${span.id}`,
          `POST /api/v1/annotations allowed ${p.id}`,
        ],
      );
    } finally {
      await s.stop();
    }
  });
}

test("a reader lists but cannot write (403, nothing changes); without a database every annotation route is 503", async () => {
  const b = dbs.backends[0];
  assert.ok(b);
  const db = await b.fresh();
  const s = await startConsole("auth:\n  anonymous:\n    role: viewer\n", { db });
  await s.whenReady();
  try {
    assert.equal((await call(s, "GET", "/api/v1/annotations")).status, 200);
    const before = await snapshot(db);
    const r = await call(s, "POST", "/api/v1/annotations", { at: "2026-02-01T10:00:00Z", text: "x" });
    assert.equal(r.status, 403);
    assert.deepEqual(await snapshot(db), before);
  } finally {
    await s.stop();
  }
  const none = await startConsole("auth:\n  anonymous:\n    role: operator\n");
  try {
    assert.equal((await call(none, "GET", "/api/v1/annotations")).status, 503);
    const w = await call(none, "POST", "/api/v1/annotations", { at: "2026-02-01T10:00:00Z", text: "x" });
    assert.equal(w.status, 503);
    assert.equal(code(w.body), "unavailable");
  } finally {
    await none.stop();
  }
});
