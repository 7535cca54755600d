/**
 * Names refuse terminal and bidirectional control characters (issue 37): an ESC sequence or a right-to-left
 * override in a name would be written verbatim into audit details and shown by every page and terminal that
 * prints them. Every string field of every write body that names something (a record's name, a username, a
 * subject, a role, a node, a pair's ends, a scope) answers 400 for C0 and C1 controls, DEL and the bidirectional
 * formatting characters, exactly as it does for NUL, and changes nothing; a custom role's name in the path is
 * refused too (404, as every malformed path parameter).
 * The valid rest of each body comes from the write-route examples.
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

/** Body keys that name something (and flow into audit details). */
const NAME_KEYS = new Set(["name", "username", "subject", "role", "source", "destination", "node", "scope"]);

const DISPLAY_CONTROLS = [
  "\u001b[31mred",
  "evil\u202etxt.exe",
  "a\u009b2Jb",
  "a\u2066b\u2069",
  "a\u200fb",
  "a\u061cb",
  "bell\u0007",
  "tab\tname",
  "del\u007f",
];

function isStringField(s: z.ZodType): boolean {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) return isStringField(s.unwrap() as z.ZodType);
  if (s instanceof z.ZodDefault) return isStringField(s.unwrap() as z.ZodType);
  return s instanceof z.ZodString;
}

function nameKeys(spec: RouteSpec): string[] {
  if (!(spec.body instanceof z.ZodObject)) return [];
  return Object.entries(spec.body.shape as Record<string, z.ZodType>)
    .filter(([k, s]) => NAME_KEYS.has(k) && isStringField(s))
    .map(([k]) => k);
}

test("every name field of every write body refuses control and bidi characters with 400, changing nothing", async () => {
  const e = await envs.env();
  try {
    const seen: string[] = [];
    for (const spec of writeRoutes) {
      const keys = nameKeys(spec);
      if (keys.length === 0) continue;
      const make = EXAMPLES[spec.name];
      assert.ok(make, spec.name);
      const ex = await make(e);
      const body = ex.body as Record<string, unknown>;
      for (const key of keys) {
        seen.push(`${spec.name}.${key}`);
        for (const bad of DISPLAY_CONTROLS) {
          const before = await snapshot(e.db);
          const client = ex.client ?? e.admin;
          const r = await client.request(spec.method, pathOf(spec, ex.params), {
            body: { ...body, [key]: bad },
            csrf: true,
          });
          assert.equal(
            r.status,
            400,
            `${spec.name}.${key} = ${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`,
          );
          assert.deepEqual(await snapshot(e.db), before, `${spec.name}.${key}: state changed`);
        }
      }
      e.clock.advance(60_000);
    }
    for (const want of [
      "mintToken.name",
      "createTarget.name",
      "createCheck.name",
      "createSchedule.name",
      "createAlertRule.name",
      "createBinding.subject",
      "createBinding.role",
      "createUser.username",
      "createAnnotation.scope",
      "createMaintenanceWindow.node",
      "createIncident.scope",
      "runFleetCheck.source",
      "login.username",
    ])
      assert.ok(seen.includes(want), `${want} not checked (checked: ${seen.join(", ")})`);
  } finally {
    await e.server.stop();
  }
});

test("a custom role named with an ESC or a right-to-left override in the path is refused; a token name too", async () => {
  const e = await envs.env();
  try {
    const before = await snapshot(e.db);
    for (const bad of DISPLAY_CONTROLS) {
      const r = await e.admin.request("PUT", `/api/v1/rbac/roles/${encodeURIComponent(bad)}`, {
        body: { permissions: ["audit:read"] },
        csrf: true,
      });
      // a malformed path parameter answers 404 on every route (the house rule), naming why
      assert.equal(r.status, 404, `${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`);
      assert.match(JSON.stringify(r.body), /control or bidirectional formatting characters/);
      const t = await e.admin.request("POST", "/api/v1/tokens", { body: { name: bad }, csrf: true });
      assert.equal(t.status, 400, `token ${JSON.stringify(bad)}: ${JSON.stringify(t.body)}`);
      assert.match(JSON.stringify(t.body), /control or bidirectional formatting characters/);
    }
    assert.deepEqual(await snapshot(e.db), before);
    // the same names without the control characters are fine
    const ok = await e.admin.request("POST", "/api/v1/tokens", {
      body: { name: "ci pipeline é" },
      csrf: true,
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  } finally {
    await e.server.stop();
  }
});
