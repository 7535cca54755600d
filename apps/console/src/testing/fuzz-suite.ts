/**
 * Test helper: property-based fuzzing of every console write route (the contract's non-GET routes), as the signed-in
 * administrator through app.inject, with requests drawn from each route's zod schemas (testing/fuzz-inputs.ts).
 * Fixed seed, FUZZ_RUNS cases per route. Invariants, per request:
 * - never a 5xx;
 * - a 2xx only for input the contract accepts (path parameters and body valid);
 * - parseable JSON the schema refuses: 404 for a bad path parameter, else 400;
 * - a refused request changes nothing (users, tokens, bindings, roles, sessions, non-denied audit rows);
 * - an allowed write adds an audit row.
 * The routes are split into shards (api/fuzz-*.test.ts), one console each, so each file stays inside the runner's
 * per-file time limit as routes are added, and two shards run at once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { after, before, test } from "node:test";
import type { RouteSpec } from "@svc/contract";
import fc from "fast-check";
import { hashSessionId } from "../auth/sessions.ts";
import { type FakeController, snapshotOf, startFakeController } from "./fake-controller.ts";
import { type FuzzRequest, payloadText, requestArb } from "./fuzz-inputs.ts";
import { type LocalEnv, type LocalEnvs, localEnvs } from "./local-env.ts";
import { type StoreSnapshot, snapshot } from "./store-snapshot.ts";
import { EXAMPLES, writeRoutes } from "./write-examples.ts";

const SEED = 18;
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

let envs: LocalEnvs;
let controller: FakeController;
let e: LocalEnv;

let adminId: string | undefined;

/** Cookie and CSRF headers of the administrator, or of a fresh session made in the store (for logout). */
async function credentials(spec: RouteSpec): Promise<Record<string, string>> {
  if (spec.name !== "logout") {
    const cookie = [...e.admin.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    return { cookie, "x-csrf-token": e.admin.jar.get("__Host-svc_csrf") ?? "" };
  }
  const id = randomBytes(32).toString("base64url");
  const csrf = randomBytes(24).toString("base64url");
  adminId ??= (await e.store.getUserByUsername("admin"))?.id;
  await e.store.createSession({
    idHash: hashSessionId(id),
    subject: `local:${adminId}`,
    display: "admin",
    groups: [],
    csrf,
    createdAt: e.clock.t,
    lastSeenAt: e.clock.t,
    // far beyond the run: the minute purge must not delete these mid-case once the routes moved the clock an hour
    expiresAt: e.clock.t + 30 * 86_400_000,
    data: {},
  });
  return { cookie: `__Host-svc_session=${id}; __Host-svc_csrf=${csrf}`, "x-csrf-token": csrf };
}

/** The JSON value the server would parse from `r`, or undefined when it would not parse one. */
function parsedBody(r: FuzzRequest): { ok: true; value: unknown } | { ok: false } {
  const text = payloadText(r);
  if (text === undefined) return { ok: true, value: undefined };
  if (r.contentType !== "application/json" || text.length > 1024 * 1024) return { ok: false };
  if (/"(__proto__|constructor)"\s*:/.test(text)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The status the contract's input rules decide, when they decide one. */
function expectedRefusal(spec: RouteSpec, r: FuzzRequest): number | undefined {
  const body = parsedBody(r);
  if (!body.ok) return undefined; // refused by the body parser: some 4xx
  // an empty segment matches no route; one over Fastify's maxParamLength (100) is 414 before any handler
  const odd = (v: string) => v === "" || encodeURIComponent(v).length > 100;
  if (!r.params || Object.values(r.params).some(odd)) return undefined;
  if (spec.params && !spec.params.safeParse(r.params).success) return 404;
  if (spec.body && !spec.body.safeParse(body.value).success) return 400;
  return undefined;
}

/** True when the contract accepts `r`'s path parameters and (for a route with a body) its body. */
function accepted(spec: RouteSpec, r: FuzzRequest): boolean {
  if (!r.params || (spec.params && !spec.params.safeParse(r.params).success)) return false;
  if (!spec.body) return true; // whatever a body-less route was sent is ignored
  const body = parsedBody(r);
  return body.ok && spec.body.safeParse(body.value).success;
}

/** Number of fuzz test files (api/fuzz-1.test.ts ...); route i goes to shard i % FUZZ_SHARDS. */
export const FUZZ_SHARDS = 8;

/** Registers the console, its hooks and one fuzz test per write route of `shard` (0-based). */
export function fuzzShard(shard: number): void {
  before(async () => {
    envs = await localEnvs();
    controller = await startFakeController(snapshotOf(["a", "b"]));
    e = await envs.env("local", `controller:\n  url: ${controller.url}\n`);
  });
  after(async () => {
    await e?.server.stop();
    await envs?.close();
    await controller?.close();
  });
  writeRoutes.forEach((spec, i) => {
    if (i % FUZZ_SHARDS === shard) fuzzRoute(spec);
  });
  if (shard === 0)
    test("one fuzz file per shard: no write route goes unfuzzed", () => {
      const dir = new URL("../api/", import.meta.url);
      const files = readdirSync(dir).filter((f) => /^fuzz-\d+\.test\.ts$/.test(f));
      assert.equal(files.length, FUZZ_SHARDS, files.join(", "));
    });
}

function fuzzRoute(spec: RouteSpec): void {
  test(`fuzz ${spec.method} ${spec.path} (${spec.name})`, async () => {
    const make = EXAMPLES[spec.name];
    assert.ok(make, `${spec.name}: no example in testing/write-examples.ts`);
    e.clock.advance(120_000); // fresh sign-in budgets (per minute) for the example and the cases; sessions stay
    // sessions the advance expired (idle sign-ins of earlier routes) go now, not when the minute purge happens to
    // run in the middle of a case and changes the store under a refused request
    await e.server.purgeSessions();
    const example = await make(e);
    let state: StoreSnapshot | undefined;
    let allowed = 0;
    await fc.assert(
      fc.asyncProperty(requestArb(spec, example), async (r) => {
        const headers = await credentials(spec);
        if (r.contentType) headers["content-type"] = r.contentType;
        const before = spec.name === "logout" || !state ? await snapshot(e.db) : state;
        const res = await e.server.app.inject({
          method: spec.method,
          url: r.url,
          headers,
          payload: payloadText(r),
        });
        const what = `${spec.method} ${r.url.slice(0, 120)} ${String(r.payload).slice(0, 120)} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
        assert.ok(res.statusCode < 500, what);
        assert.ok(res.statusCode >= 200, what);
        const after = await snapshot(e.db);
        state = after;
        const want = expectedRefusal(spec, r);
        if (want !== undefined) assert.equal(res.statusCode, want, what);
        if (res.statusCode < 300) {
          allowed++;
          assert.ok(accepted(spec, r), `2xx for input the contract refuses: ${what}`);
          assert.ok(after.audit > before.audit, `allowed without an audit row: ${what}`);
        } else {
          assert.deepEqual(after, before, `refused but state changed: ${what}`);
        }
      }),
      { seed: SEED, numRuns: FUZZ_RUNS, endOnFailure: true, includeErrorInReport: true },
    );
    // the generator reaches the handlers: every route accepted some input (the examples are among the draws)
    assert.ok(allowed > 0 || spec.name === "changePassword", `${spec.name}: no request was allowed`);
  });
}
