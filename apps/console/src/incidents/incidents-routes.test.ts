/**
 * Incident routes against a real console and database: Save as incident (zone-pair and cluster save as global),
 * lifecycle Open -> Resolved -> Open with 409 for a transition from the state it would reach, notes keeping line
 * breaks and tabs and refusing other control characters with 422, pinned findings (maintenance windows, threshold
 * crossings and firing alerts 422; at most 50), delete; 404 for unknown and malformed ids; 403 per permission; 503
 * without a database; the keyset cursor over ties, the status filter, the Time Machine; audit rows of every write;
 * and incident.created|resolved|reopened delivered signed to a real loopback receiver.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { INCIDENT_EXAMPLE, type Incident, PIN_EXAMPLE } from "@svc/contract";
import { startConsole } from "../testing/harness.ts";
import { browser, type LocalEnv, type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers, TOKEN_HEADER } from "../testing/role-callers.ts";
import { type Delivery, startWebhookReceiver, type WebhookReceiver } from "../testing/webhook-receiver.ts";
import { verifySignature } from "../webhooks/sign.ts";

const SECRET = "incident-signing-secret-0123456789";
let envs: LocalEnvs;
let receiver: WebhookReceiver;
let hookUrl = "";
let received: Delivery[] = [];

before(async () => {
  envs = await localEnvs();
  receiver = await startWebhookReceiver();
  hookUrl = receiver.url;
  received = receiver.received;
});
after(async () => {
  await receiver.close();
  await envs.close();
});

const create = async (e: LocalEnv, body: unknown = INCIDENT_EXAMPLE) => {
  const r = await w(e.admin, "POST", "/api/v1/incidents", body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as Incident;
};

test("save, read, notes, pins, resolve, reopen, delete; 422, 409, 404; audited", async () => {
  const e = await envs.env("local");
  try {
    const a = e.admin;
    const inc = await create(e);
    assert.deepEqual(
      [
        inc.status,
        inc.kind,
        inc.scope,
        inc.title,
        inc.notes,
        inc.openedBy,
        inc.openedByDisplay,
        inc.resolvedAt,
      ],
      ["open", "node", "node-2", INCIDENT_EXAMPLE.title, INCIDENT_EXAMPLE.notes, inc.openedBy, "admin", null],
    );
    assert.match(inc.openedBy, /^local:/, "the opener's subject identifier");
    assert.equal(inc.permalink, `/investigate?incident=${inc.id}`);
    assert.equal(inc.openedAt, new Date(e.clock.t).toISOString());
    const got = await a.request("GET", `/api/v1/incidents/${inc.id}`);
    assert.deepEqual(got.body, inc);

    // zone-pair and cluster scopes save as global; a pair is written source->destination
    for (const kind of ["zone-pair", "cluster"]) {
      const g = await create(e, { ...INCIDENT_EXAMPLE, kind, scope: "zone-a->zone-b" });
      assert.deepEqual([g.kind, g.scope], ["global", ""], kind);
    }
    const pair = await create(e, { ...INCIDENT_EXAMPLE, kind: "pair", scope: "node-1 -> node-2" });
    assert.equal(pair.scope, "node-1->node-2");

    // notes keep line breaks and tabs; any other control character is 422 and changes nothing
    const kept = "first line\r\n\tindented\nthird";
    const n = await w(a, "PUT", `/api/v1/incidents/${inc.id}/notes`, { notes: kept });
    assert.equal(n.status, 200, JSON.stringify(n.body));
    assert.equal((n.body as Incident).notes, kept);
    for (const bad of ["bell\u0007", "nul\u0000", "esc\u001b[31m", "del\u007f", "c1\u0085", "vt\u000b"]) {
      const r = await w(a, "PUT", `/api/v1/incidents/${inc.id}/notes`, { notes: bad });
      assert.equal(r.status, 422, JSON.stringify(bad));
      assert.deepEqual(r.body, {
        error: {
          code: "unprocessable",
          message: "notes must not contain control characters other than line breaks and tabs",
        },
      });
      const c = await w(a, "POST", "/api/v1/incidents", { ...INCIDENT_EXAMPLE, notes: bad });
      assert.equal(c.status, 422, JSON.stringify(bad));
    }
    assert.equal(((await a.request("GET", `/api/v1/incidents/${inc.id}`)).body as Incident).notes, kept);

    const refusals: [unknown, number][] = [
      [{ ...INCIDENT_EXAMPLE, title: "  " }, 422],
      [{ ...INCIDENT_EXAMPLE, title: "two\nlines" }, 422],
      [{ ...INCIDENT_EXAMPLE, to: INCIDENT_EXAMPLE.from }, 422],
      [{ ...INCIDENT_EXAMPLE, scope: "" }, 422],
      [{ ...INCIDENT_EXAMPLE, kind: "pair", scope: "node-1" }, 422],
      [{ ...INCIDENT_EXAMPLE, pins: [{ ...PIN_EXAMPLE, kind: "firing-alert" }] }, 422],
      [{ ...INCIDENT_EXAMPLE, kind: "zone" }, 400],
      [{ ...INCIDENT_EXAMPLE, from: "yesterday" }, 400],
      [{ ...INCIDENT_EXAMPLE, title: "x".repeat(201) }, 400],
      [{ ...INCIDENT_EXAMPLE, notes: "x".repeat(16_385) }, 400],
      [{ ...INCIDENT_EXAMPLE, extra: 1 }, 400],
    ];
    for (const [body, status] of refusals)
      assert.equal((await w(a, "POST", "/api/v1/incidents", body)).status, status, JSON.stringify(body));

    // pins: labelled with the badge word; unpinnable kinds 422; at most 50
    const p = await w(a, "POST", `/api/v1/incidents/${inc.id}/pins`, PIN_EXAMPLE);
    assert.equal(p.status, 201, JSON.stringify(p.body));
    const pin = (p.body as Incident).pins[0];
    assert.ok(pin);
    assert.deepEqual(
      [pin.kind, pin.badge, pin.title, pin.note, pin.pinnedBy, pin.timestamp],
      ["k8s-event", "K8s event", PIN_EXAMPLE.title, PIN_EXAMPLE.note, "admin", "2026-01-01T02:04:00.000Z"],
    );
    for (const kind of ["maintenance-window", "threshold-crossing", "firing-alert"]) {
      const r = await w(a, "POST", `/api/v1/incidents/${inc.id}/pins`, { ...PIN_EXAMPLE, kind });
      assert.equal(r.status, 422, kind);
    }
    const badNote = await w(a, "POST", `/api/v1/incidents/${inc.id}/pins`, {
      ...PIN_EXAMPLE,
      note: "a\u0001",
    });
    assert.equal(badNote.status, 422);
    for (let i = 1; i < 50; i++)
      assert.equal((await w(a, "POST", `/api/v1/incidents/${inc.id}/pins`, PIN_EXAMPLE)).status, 201);
    assert.equal((await w(a, "POST", `/api/v1/incidents/${inc.id}/pins`, PIN_EXAMPLE)).status, 422, "51st");
    assert.equal((await w(a, "DELETE", `/api/v1/incidents/${inc.id}/pins/${pin.id}`)).status, 204);
    assert.equal((await w(a, "DELETE", `/api/v1/incidents/${inc.id}/pins/${pin.id}`)).status, 404);
    const afterUnpin = (await a.request("GET", `/api/v1/incidents/${inc.id}`)).body as Incident;
    assert.equal(afterUnpin.pins.length, 49);

    // lifecycle
    e.clock.advance(60_000);
    const res = await w(a, "POST", `/api/v1/incidents/${inc.id}/resolve`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [(res.body as Incident).status, (res.body as Incident).resolvedAt],
      ["resolved", new Date(e.clock.t).toISOString()],
    );
    const again = await w(a, "POST", `/api/v1/incidents/${inc.id}/resolve`);
    assert.deepEqual(
      [again.status, (again.body as { error: { code: string } }).error.code],
      [409, "conflict"],
    );
    const re = await w(a, "POST", `/api/v1/incidents/${inc.id}/reopen`);
    assert.deepEqual([(re.body as Incident).status, (re.body as Incident).resolvedAt], ["open", null]);
    assert.equal((await w(a, "POST", `/api/v1/incidents/${inc.id}/reopen`)).status, 409);

    // unknown and malformed ids alike: 404
    for (const id of [randomUUID(), "nope", "x".repeat(65), "%E2%80%AE", "..%2F"]) {
      assert.equal((await a.request("GET", `/api/v1/incidents/${id}`)).status, 404, id);
      assert.equal((await w(a, "POST", `/api/v1/incidents/${id}/resolve`)).status, 404, id);
      assert.equal((await w(a, "POST", `/api/v1/incidents/${id}/reopen`)).status, 404, id);
      assert.equal((await w(a, "PUT", `/api/v1/incidents/${id}/notes`, { notes: "x" })).status, 404, id);
      assert.equal((await w(a, "POST", `/api/v1/incidents/${id}/pins`, PIN_EXAMPLE)).status, 404, id);
      assert.equal((await w(a, "DELETE", `/api/v1/incidents/${id}/pins/p`)).status, 404, id);
      assert.equal((await w(a, "DELETE", `/api/v1/incidents/${id}`)).status, 404, id);
    }

    // every change audited with its route; the notes themselves are not copied into the audit
    const audit = await e.store.listAudit(1000);
    const actions = new Set(audit.filter((r) => r.outcome === "allowed").map((r) => r.action));
    for (const action of [
      "POST /api/v1/incidents",
      "PUT /api/v1/incidents/:id/notes",
      "POST /api/v1/incidents/:id/pins",
      "DELETE /api/v1/incidents/:id/pins/:pinId",
      "POST /api/v1/incidents/:id/resolve",
      "POST /api/v1/incidents/:id/reopen",
    ])
      assert.ok(actions.has(action), action);
    assert.ok(!JSON.stringify(audit).includes("indented"));

    assert.equal((await w(a, "DELETE", `/api/v1/incidents/${inc.id}`)).status, 204);
    assert.equal((await a.request("GET", `/api/v1/incidents/${inc.id}`)).status, 404);
    assert.equal((await w(a, "DELETE", `/api/v1/incidents/${inc.id}`)).status, 404);
  } finally {
    await e.server.stop();
  }
});

test("list: newest first, 50 per page over ties, status filter, cursor 400s", async () => {
  const e = await envs.env("local");
  try {
    // 120 incidents, three to a millisecond (ties broken by id), every third resolved
    const t0 = e.clock.t - 1_000_000;
    for (let i = 0; i < 120; i++) {
      const id = randomUUID();
      const at = t0 + Math.floor(i / 3) * 1000;
      const status = i % 3 === 0 ? "resolved" : "open";
      await e.db.query(
        `INSERT INTO incidents (id, status, kind, scope, window_from, window_to, title, notes, opened_by,
           opened_by_display, opened_at, resolved_at, updated_at, pins)
         VALUES ($1, $2, 'global', '', 0, 1, $3, '', 'local:x', 'x', $4, NULL, $4, '[]')`,
        [id, status, `incident ${i}`, at],
      );
      await e.db.query("INSERT INTO incident_transitions (incident_id, at, status) VALUES ($1, $2, 'open')", [
        id,
        at,
      ]);
      if (status === "resolved")
        await e.db.query(
          "INSERT INTO incident_transitions (incident_id, at, status) VALUES ($1, $2, 'resolved')",
          [id, at + 1],
        );
    }
    const walk = async (status: string) => {
      const seen: Incident[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `status=${status}${cursor ? `&cursor=${cursor}` : ""}`;
        const r = await e.admin.request("GET", `/api/v1/incidents?${q}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const page = r.body as { incidents: Incident[]; nextCursor: string | null };
        sizes.push(page.incidents.length);
        seen.push(...page.incidents);
        cursor = page.nextCursor;
      } while (cursor);
      return { seen, sizes };
    };
    const all = await walk("all");
    assert.deepEqual(all.sizes, [50, 50, 20]);
    assert.equal(new Set(all.seen.map((i) => i.id)).size, 120, "each exactly once");
    const keys = all.seen.map((i) => [Date.parse(i.openedAt), i.id] as const);
    for (let k = 1; k < keys.length; k++) {
      const [pa, pi] = keys[k - 1] ?? [0, ""];
      const [ca, ci] = keys[k] ?? [0, ""];
      assert.ok(pa > ca || (pa === ca && pi > ci), "newest first, ties by id");
    }
    const open = await walk("open");
    assert.deepEqual(open.sizes, [50, 30]);
    assert.ok(open.seen.every((i) => i.status === "open" && i.resolvedAt === null));
    const resolved = await walk("resolved");
    assert.deepEqual(resolved.sizes, [40]);
    assert.ok(resolved.seen.every((i) => i.status === "resolved" && i.resolvedAt !== null));
    assert.equal((await e.admin.request("GET", "/api/v1/incidents")).status, 200, "status defaults to all");
    // the words spec §4.3 uses (All / Open / Resolved), in any case, filter as the lowercase ones do
    const same = async (word: string, want: { seen: Incident[] }) => {
      const r = await e.admin.request("GET", `/api/v1/incidents?status=${word}`);
      assert.equal(r.status, 200, `${word}: ${JSON.stringify(r.body)}`);
      const ids = (r.body as { incidents: Incident[] }).incidents.map((i) => i.id);
      assert.deepEqual(
        ids,
        want.seen.slice(0, ids.length).map((i) => i.id),
        word,
      );
      assert.equal(ids.length, Math.min(50, want.seen.length), word);
    };
    await same("Open", open);
    await same("All", all);
    await same("Resolved", resolved);
    await same("OPEN", open);
    await same("rEsOlVeD", resolved);

    for (const q of ["status=Closed", "cursor=!!", "cursor=bm9wZQ", "at=yesterday"])
      assert.equal((await e.admin.request("GET", `/api/v1/incidents?${q}`)).status, 400, q);
  } finally {
    await e.server.stop();
  }
});

test("the Time Machine: declared by the instant, resolved only if resolved by then", async () => {
  const e = await envs.env("local");
  try {
    const a = e.admin;
    const iso = (ms: number) => new Date(ms).toISOString();
    const t1 = e.clock.t;
    const first = await create(e, { ...INCIDENT_EXAMPLE, title: "first" });
    e.clock.advance(60_000);
    const t2 = e.clock.t;
    await w(a, "POST", `/api/v1/incidents/${first.id}/resolve`);
    e.clock.advance(60_000);
    const t3 = e.clock.t;
    const second = await create(e, { ...INCIDENT_EXAMPLE, title: "second" });
    e.clock.advance(60_000);
    const t4 = e.clock.t;
    await w(a, "POST", `/api/v1/incidents/${first.id}/reopen`);

    const at = async (ms: number, status = "all") => {
      const r = await a.request("GET", `/api/v1/incidents?status=${status}&at=${iso(ms)}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body as { incidents: Incident[] }).incidents.map((i) => `${i.title}:${i.status}`);
    };
    assert.deepEqual(await at(t1 - 1), [], "nothing declared yet");
    assert.deepEqual(await at(t1), ["first:open"]);
    assert.deepEqual(await at(t2 - 1), ["first:open"], "not resolved before the resolve");
    assert.deepEqual(await at(t2), ["first:resolved"]);
    assert.deepEqual(await at(t3), ["second:open", "first:resolved"]);
    assert.deepEqual(await at(t3, "open"), ["second:open"]);
    assert.deepEqual(await at(t3, "resolved"), ["first:resolved"]);
    assert.deepEqual(await at(t4), ["second:open", "first:open"], "reopened");
    assert.deepEqual(await at(t4, "resolved"), []);
    const past = await a.request("GET", `/api/v1/incidents/${first.id}?at=${iso(t2 + 1)}`);
    assert.deepEqual(
      [(past.body as Incident).status, (past.body as Incident).resolvedAt],
      ["resolved", iso(t2)],
    );
    assert.equal((await a.request("GET", `/api/v1/incidents/${second.id}?at=${iso(t2)}`)).status, 404);
    const live = (await a.request("GET", "/api/v1/incidents")).body as { incidents: Incident[] };
    assert.deepEqual(
      live.incidents.map((i) => `${i.title}:${i.status}`),
      ["second:open", "first:open"],
    );
  } finally {
    await e.server.stop();
  }
});

test("permissions: incidents:read and incidents:write", async () => {
  const e = await envs.env("local");
  try {
    const callers = await roleCallers(e);
    const inc = await create(e);
    const expected: Record<string, [number, number, number]> = {
      // [list, create, resolve]
      admin: [200, 201, 200],
      viewer: [200, 403, 403],
      "alert-editor": [200, 403, 403],
      operator: [200, 201, 409],
      token: [403, 403, 403],
      anonymous: [401, 401, 401],
    };
    for (const [who, want] of Object.entries(expected)) {
      const c = callers[who];
      assert.ok(c);
      const h = who === "token" ? TOKEN_HEADER : undefined;
      const got = [
        (await w(c, "GET", "/api/v1/incidents", undefined, h)).status,
        (await w(c, "POST", "/api/v1/incidents", INCIDENT_EXAMPLE, h)).status,
        (await w(c, "POST", `/api/v1/incidents/${inc.id}/resolve`, undefined, h)).status,
      ];
      assert.deepEqual(got, want, who);
    }
    const [count] = await e.db.query("SELECT count(*)::int AS n FROM incidents");
    assert.equal(Number(count?.n), 3, "refused creates stored nothing (the first, admin's and operator's)");
  } finally {
    await e.server.stop();
  }
});

test("503 without a database", async () => {
  const s = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    const c = browser(s);
    assert.equal((await c.request("GET", "/api/v1/incidents")).status, 503);
    assert.equal((await c.request("GET", `/api/v1/incidents/${randomUUID()}`)).status, 503);
    assert.equal((await w(c, "POST", "/api/v1/incidents", INCIDENT_EXAMPLE)).status, 503);
  } finally {
    await s.stop();
  }
});

test("incident.created, .resolved, .reopened: signed deliveries with every key of the family", async () => {
  const e = await envs.env("local");
  try {
    const a = e.admin;
    const ep = await w(a, "POST", "/api/v1/webhooks", {
      url: hookUrl,
      events: ["incident.created", "incident.resolved", "incident.reopened"],
      secret: SECRET,
    });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));
    const alertsOnly = await w(a, "POST", "/api/v1/webhooks", {
      url: `${hookUrl}?alerts`,
      events: ["alert.fired"],
      secret: SECRET,
    });
    assert.equal(alertsOnly.status, 201);
    received.length = 0;
    const inc = await create(e);
    const created = e.clock.t;
    e.clock.advance(1000);
    await w(a, "POST", `/api/v1/incidents/${inc.id}/resolve`);
    const resolved = e.clock.t;
    await w(a, "POST", `/api/v1/incidents/${inc.id}/resolve`); // 409: no transition, no webhook
    e.clock.advance(1000);
    await w(a, "POST", `/api/v1/incidents/${inc.id}/reopen`);
    const deadline = Date.now() + 10_000;
    while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100)); // nothing further arrives
    assert.equal(received.length, 3, "one delivery per change, only to the subscribed endpoint");
    const bodies = received.map((d) => {
      assert.ok(verifySignature(SECRET, d.body, d.signature), "signed over the raw body");
      return JSON.parse(d.body.toString()) as Record<string, unknown>;
    });
    bodies.sort((x, y) => String(x.at).localeCompare(String(y.at)));
    assert.deepEqual(
      bodies.map((b) => [b.event, (b.incident as { id: string }).id, b.at]),
      [
        ["incident.created", inc.id, new Date(created).toISOString()],
        ["incident.resolved", inc.id, new Date(resolved).toISOString()],
        ["incident.reopened", inc.id, new Date(resolved + 1000).toISOString()],
      ],
    );
    const keys = (b: Record<string, unknown>) =>
      [...Object.keys(b), ...Object.keys(b.incident as object).map((k) => `incident.${k}`)].sort();
    for (const b of bodies) {
      assert.deepEqual(keys(b), keys(bodies[0] ?? {}), "every key of the family on every delivery");
      assert.ok(typeof b.sentAt === "string");
    }
    assert.deepEqual(
      bodies.map((b) => (b.incident as { resolvedAt: string | null }).resolvedAt),
      [null, new Date(resolved).toISOString(), null],
    );
  } finally {
    await e.server.stop();
  }
});
