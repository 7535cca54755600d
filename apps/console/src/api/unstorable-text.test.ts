/**
 * A NUL or a lone UTF-16 surrogate in any string field of any write route's body answers 400 (never 500; 422 for a
 * NUL in incident notes and titles, which spec §7 judges as a control character) and changes nothing: no user, token, binding, role or allowed audit row appears. The fields come from the contract's
 * zod schemas, the valid rest of each body from the write-route examples.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { pathOf, type RouteSpec } from "@svc/contract";
import { z } from "zod";
import { type LocalEnvs, localEnvs } from "../testing/local-env.ts";
import { snapshot } from "../testing/store-snapshot.ts";
import { EXAMPLES, writeRoutes } from "../testing/write-examples.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());

/**
 * Fields whose control characters the handler judges (spec §7: notes with a control character other than line
 * break or tab are 422): a NUL there is 422, a lone surrogate still 400.
 */
const CONTROL_422 = new Set([
  "createIncident.title",
  "createIncident.notes",
  "updateIncidentNotes.notes",
  "pinFinding.note",
]);

const UNSTORABLE = ["a\u0000b", "\u0000", "a\uD800b", "\uDC00", "x\uDBFFy", "\uD83D"];

/** True for a string schema, under optional / nullable wrappers. */
function isStringField(s: z.ZodType): boolean {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) return isStringField(s.unwrap() as z.ZodType);
  return s instanceof z.ZodString;
}

/** Body keys of `spec` holding a string (or a list of strings). */
function stringKeys(spec: RouteSpec): { key: string; list: boolean }[] {
  if (!(spec.body instanceof z.ZodObject)) return [];
  const out: { key: string; list: boolean }[] = [];
  for (const [key, s] of Object.entries(spec.body.shape as Record<string, z.ZodType>)) {
    if (isStringField(s)) out.push({ key, list: false });
    else if (s instanceof z.ZodArray && isStringField(s.element as z.ZodType)) out.push({ key, list: true });
  }
  return out;
}

test("every string field of every write body refuses NUL and lone surrogates with 400, changing nothing", async () => {
  const e = await envs.env();
  try {
    let checked = 0;
    for (const spec of writeRoutes) {
      const keys = stringKeys(spec);
      if (keys.length === 0) continue;
      const make = EXAMPLES[spec.name];
      assert.ok(make, spec.name);
      const ex = await make(e);
      const body = ex.body as Record<string, unknown>;
      for (const { key, list } of keys) {
        for (const bad of UNSTORABLE) {
          const before = await snapshot(e.db);
          const sent = { ...body, [key]: list ? ["audit:read", bad] : bad };
          const client = ex.client ?? e.admin;
          const r = await client.request(spec.method, pathOf(spec, ex.params), { body: sent, csrf: true });
          // spec §7: a control character in notes is 422 (incident title and notes, a pinned finding's note)
          const want = bad.includes("\u0000") && CONTROL_422.has(`${spec.name}.${key}`) ? 422 : 400;
          assert.equal(
            r.status,
            want,
            `${spec.name}.${key} = ${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`,
          );
          assert.deepEqual(await snapshot(e.db), before, `${spec.name}.${key}: state changed`);
          checked++;
        }
      }
      e.clock.advance(60_000);
    }
    // login, password change, binding, role, user create / role / password, token name, fleet check
    assert.ok(checked >= 14 * UNSTORABLE.length, String(checked));
  } finally {
    await e.server.stop();
  }
});

test("POST /api/v1/tokens with a lone surrogate in name mints nothing", async () => {
  const e = await envs.env();
  try {
    for (const name of ["\uD800", "ci\uDFFF", "\uDBFF\uDBFF"]) {
      const r = await e.admin.request("POST", "/api/v1/tokens", { body: { name }, csrf: true });
      assert.equal(r.status, 400);
    }
    assert.deepEqual(await e.store.listTokens(), []);
  } finally {
    await e.server.stop();
  }
});
