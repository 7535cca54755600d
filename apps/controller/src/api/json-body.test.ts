import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Controller } from "../controller.ts";
import { testConfig } from "../testing/test-config.ts";
import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonText } from "./json-body.ts";

const DEEP = 100_000;
const deepArray = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
const deepObject = `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`;

test("depth is counted over arrays and objects, brackets inside strings do not count", () => {
  const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false);
  assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true);
  assert.equal(jsonDepthExceeds(JSON.stringify({ s: "[[[[{{{{".repeat(100) }), 2), false);
  assert.equal(
    jsonDepthExceeds(JSON.stringify({ s: 'x\\"[[[' }), 1),
    false,
    "escaped quote stays in the string",
  );
  assert.equal(jsonDepthExceeds("[[],[],[[]]]", 3), false, "siblings do not add up");
  assert.ok(Array.isArray(parseJsonText(nested(MAX_JSON_DEPTH))));
  assert.throws(() => parseJsonText(deepArray), /malformed JSON: nested deeper than 64 levels/);
  assert.throws(() => parseJsonText(deepObject), /malformed JSON: nested deeper than 64 levels/);
});

const c = new Controller({
  config: testConfig(),
  version: { version: "2.5.0", commit: "t" },
  grpcHost: "127.0.0.1",
  httpHost: "127.0.0.1",
  isLeader: () => true,
});
before(() => c.start());
after(() => c.stop());

async function send(method: string, path: string, body: string, type = "application/json") {
  const res = await fetch(`http://127.0.0.1:${c.httpPort}${path}`, {
    method,
    headers: { "content-type": type },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Every POST/PUT route of the controller's HTTP API (spec §4.2). */
const ROUTES: [string, string][] = [
  ["POST", "/api/v1/diagnostics"],
  ["PUT", "/api/v1/external-checks"],
];

/** Deepest nestings that fit the diagnostics body limit (64 KiB): deep enough to overflow JSON.stringify. */
const fitArray = `${"[".repeat(32_000)}${"]".repeat(32_000)}`;
const fitObject = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;

test("bodies nested 100,000 deep (and the deepest within 64 KiB) get 400 on every POST/PUT route, never 500", async () => {
  for (const [method, path] of ROUTES) {
    for (const [shape, body] of [
      ["array", deepArray],
      ["object", deepObject],
      ["array within 64 KiB", fitArray],
      ["object within 64 KiB", fitObject],
    ] as const) {
      for (const type of ["application/json", "text/plain"]) {
        const res = await send(method, path, body, type);
        const what = `${method} ${path} ${shape} ${type}: ${res.text.slice(0, 200)}`;
        if (path === "/api/v1/diagnostics" && body.length > 65536) {
          // over the route's 64 KiB limit: refused by size before any parsing
          assert.equal(res.status, 413, what);
          continue;
        }
        assert.equal(res.status, 400, what);
        assert.match(res.text, /nested deeper than 64 levels/);
      }
    }
  }
  // each route keeps its error style: diagnostics text/plain, external-checks {"error": reason}
  const ext = await send("PUT", "/api/v1/external-checks", deepArray);
  assert.equal(typeof (JSON.parse(ext.text) as { error: unknown }).error, "string");
});

test("a deep `params` inside a body is refused too (diagnostics object, external-checks JSON string)", async () => {
  const deepParams = (n: number) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`;
  const diag = await send(
    "POST",
    "/api/v1/diagnostics",
    `{"source":"s","destination":"d","type":"tcp","params":${deepParams(30_000)}}`,
  );
  assert.equal(diag.status, 400);
  assert.match(diag.text, /nested deeper than 64 levels/);
  const spec = {
    definitionId: "d1",
    checkType: "tcp",
    target: { name: "t", kind: "host", address: "198.18.0.9", port: 0 },
    intervalNs: 5e9,
    timeoutNs: 1e9,
    params: deepParams(DEEP),
  };
  const ext = await send("PUT", "/api/v1/external-checks", JSON.stringify({ agents: { a1: [spec] } }));
  assert.equal(ext.status, 400);
  assert.match(ext.text, /params: unparseable: nested deeper than 64 levels/);
  // within the bound the same body is fine
  const ok = await send(
    "PUT",
    "/api/v1/external-checks",
    JSON.stringify({ agents: { a1: [{ ...spec, params: deepParams(10) }] } }),
  );
  assert.equal(ok.status, 200, ok.text);
});

test("a request no route matches is 404 whatever its body (malformed, too deep), not 400", async () => {
  for (const [method, path] of [
    ["POST", "/nope"],
    ["PUT", "/healthz"],
    ["OPTIONS", "/api/v1/diagnostics"],
    ["DELETE", "/api/v1/external-checks"],
  ] as const) {
    for (const body of ["{not json", deepArray]) {
      const res = await send(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
    }
  }
});
