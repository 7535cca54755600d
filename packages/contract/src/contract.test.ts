/** The contract package on its own: declarations are unique and well-formed, the string rule, the helpers. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { z } from "zod";
import { ErrorBody } from "./errors.ts";
import { buildOpenApi } from "./openapi.ts";
import { PERMISSIONS } from "./permissions.ts";
import { pathOf, queryString, route, successStatuses } from "./route.ts";
import { routes } from "./routes.ts";
import { isStorable, text } from "./strings.ts";
import { WsClientMessage, WsServerMessage } from "./ws.ts";

test("every route has a unique operation id and method+path, a success answer, and a known access", () => {
  const names = new Set<string>();
  const keys = new Set<string>();
  for (const r of routes) {
    assert.ok(!names.has(r.name), `duplicate name ${r.name}`);
    assert.ok(!keys.has(`${r.method} ${r.path}`), `duplicate ${r.method} ${r.path}`);
    names.add(r.name);
    keys.add(`${r.method} ${r.path}`);
    assert.ok(
      successStatuses(r).length > 0 || r.responses[302] !== undefined || r.responses[101] !== undefined,
      `${r.name}: no success answer`,
    );
    assert.ok(
      ["none", "caller", "role", ...PERMISSIONS].includes(r.access),
      `${r.name}: unknown access ${r.access}`,
    );
    const placeholders = [...r.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]);
    assert.deepEqual(
      placeholders.sort(),
      Object.keys(r.params?.shape ?? {}).sort(),
      `${r.name}: path placeholders and params schema disagree`,
    );
    for (const [status, schema] of Object.entries(r.responses))
      if (Number(status) >= 400 && r.tag !== "probes")
        assert.equal(schema, ErrorBody, `${r.name} ${status}: errors answer ErrorBody`);
  }
});

test("text(): NUL and unpaired surrogates are refused, paired surrogates and the length bound hold", () => {
  assert.equal(isStorable("plain ✓ 😀"), true);
  for (const bad of ["a\0b", "\uD800", "x\uDC00", "\uDBFFz", "\uDC00\uD800"]) {
    assert.equal(isStorable(bad), false, JSON.stringify(bad));
    assert.equal(text(100).safeParse(bad).success, false);
  }
  assert.equal(text(3).safeParse("abcd").success, false);
  assert.equal(text(4).safeParse("😀😀").success, true);
});

test("pathOf fills and encodes parameters; a missing one is a bug that throws", () => {
  const r = routes.find((x) => x.name === "getPair");
  assert.ok(r);
  assert.equal(pathOf(r, { source: "a/b", destination: "c d" }), "/api/v1/fleet/pairs/a%2Fb/c%20d");
  assert.throws(() => pathOf(r, { source: "a" }), /destination missing/);
  assert.throws(() => pathOf(r, Object.create({ source: "a", destination: "b" })), /missing/);
  assert.equal(queryString({ a: 1, b: undefined, c: "x&y" }), "?a=1&c=x%26y");
  assert.equal(queryString({}), "");
});

test("WebSocket messages: subscribe with a cursor, gated topics, per-topic seq on events", () => {
  assert.equal(WsClientMessage.safeParse({ type: "subscribe", topic: "live", since: 41 }).success, true);
  assert.equal(WsClientMessage.safeParse({ type: "subscribe", topic: "run:abc-1" }).success, true);
  assert.equal(WsClientMessage.safeParse({ type: "subscribe", topic: "everything" }).success, false);
  assert.equal(WsClientMessage.safeParse({ type: "subscribe", topic: "live", since: -1 }).success, false);
  assert.equal(WsClientMessage.safeParse({ type: "unsubscribe", topic: "live", extra: 1 }).success, false);
  assert.equal(WsServerMessage.safeParse({ type: "event", topic: "live", seq: 7, data: {} }).success, true);
  assert.equal(WsServerMessage.safeParse({ type: "event", topic: "live", data: {} }).success, false);
  assert.equal(
    WsServerMessage.safeParse({ type: "gap", topic: "live", from: 3, to: 9, reason: "upstream" }).success,
    true,
  );
  assert.equal(WsServerMessage.safeParse({ type: "gap", topic: "live", from: 3, to: 9 }).success, false);
  assert.ok(z.toJSONSchema(WsServerMessage));
});

test("the package imports nothing but zod and itself (the web app bundles it)", () => {
  const dir = new URL("./", import.meta.url);
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts") && !n.endsWith(".test.ts"))) {
    const src = readFileSync(new URL(f, dir), "utf8");
    for (const m of src.matchAll(/^import[^;]*?from "([^"]+)";/gms)) {
      const spec = m[1] ?? "";
      assert.ok(spec === "zod" || spec.startsWith("./"), `${f} imports ${spec}`);
    }
  }
});

test("buildOpenApi refuses a route declared twice and an id whose request and response forms differ", () => {
  const [first] = routes;
  assert.ok(first);
  assert.throws(() => buildOpenApi([first, first], { title: "t", version: "0" }), /declared twice/);
  const Draft = z.object({ n: z.number().default(1) }).meta({ id: "TestDraftWithDefault" });
  const both = route({
    name: "testDraft",
    method: "POST",
    path: "/test",
    tag: "t",
    summary: "t",
    access: "none",
    spec: false,
    body: Draft,
    responses: { 200: Draft },
  });
  assert.throws(
    () => buildOpenApi([both], { title: "t", version: "0" }),
    /TestDraftWithDefault converts to two/,
  );
  const out = buildOpenApi([{ ...both, body: z.object({ n: z.number() }) }], { title: "t", version: "0" });
  assert.ok((out.components as { schemas: Record<string, unknown> }).schemas.TestDraftWithDefault);
});
