import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import {
  type ControllerError,
  DisabledError,
  ForbiddenError,
  InvalidInputError,
  MethodNotAllowedError,
  NotFoundError,
  NotLeaderError,
  TimeoutError,
  TooLargeError,
  UnauthenticatedError,
  UnsupportedError,
  UpstreamError,
} from "../errors.ts";
import {
  type ErrorRouteConfig,
  HTTP_STATUS,
  installErrorHandler,
  installNotFoundHandler,
} from "./error-handler.ts";

const samples: ControllerError[] = [
  new InvalidInputError("bad field"),
  new TooLargeError("too big"),
  new UnauthenticatedError("who"),
  new ForbiddenError("no"),
  new NotFoundError("gone"),
  new MethodNotAllowedError(["GET"]),
  new UnsupportedError("cannot"),
  new DisabledError("off"),
  new UpstreamError("agent failed"),
  new TimeoutError("slow"),
];

function app(config: ErrorRouteConfig = {}) {
  const a = Fastify({ logger: false });
  installErrorHandler(a);
  installNotFoundHandler(a);
  let next: unknown;
  a.post("/r", { config, bodyLimit: 16 }, async () => {
    throw next;
  });
  return { a, throwing: (e: unknown) => (next = e) };
}

test("each error class answers its table status with the one JSON body shape", async () => {
  const { a, throwing } = app();
  for (const err of samples) {
    throwing(err);
    const res = await a.inject({ method: "POST", url: "/r" });
    assert.equal(res.statusCode, HTTP_STATUS[err.code], err.name);
    assert.deepEqual(res.json(), { error: { code: err.code, message: err.message } }, err.name);
  }
  throwing(new MethodNotAllowedError(["GET", "HEAD"]));
  assert.equal((await a.inject({ method: "POST", url: "/r" })).headers.allow, "GET, HEAD");
});

test("not the leader is text/plain on every route (spec §4.2); other errors never leak internals", async () => {
  for (const style of [undefined, "text", "reason"] as const) {
    const { a, throwing } = app(style === undefined ? {} : { errorBody: style });
    throwing(new NotLeaderError());
    const res = await a.inject({ method: "POST", url: "/r" });
    assert.equal(res.statusCode, 503);
    assert.equal(res.body, "not the leader");
    assert.match(String(res.headers["content-type"]), /^text\/plain/);
  }
  const { a, throwing } = app();
  throwing(new Error("secret detail"));
  const res = await a.inject({ method: "POST", url: "/r" });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { error: { code: "internal", message: "internal error" } });
});

test("route body styles: text (diagnostics) and reason (external-checks); Fastify's own errors map too", async () => {
  const text = app({ errorBody: "text" });
  text.throwing(new InvalidInputError("missing source"));
  const t = await text.a.inject({ method: "POST", url: "/r" });
  assert.equal(t.statusCode, 400);
  assert.equal(t.body, "missing source");
  assert.match(String(t.headers["content-type"]), /^text\/plain/);

  const reason = app({ errorBody: "reason", tooLargeMessage: "body over 16 B" });
  reason.throwing(new InvalidInputError("checkType: bad"));
  assert.deepEqual((await reason.a.inject({ method: "POST", url: "/r" })).json(), {
    error: "checkType: bad",
  });
  const big = await reason.a.inject({ method: "POST", url: "/r", payload: { pad: "x".repeat(64) } });
  assert.equal(big.statusCode, 413);
  assert.deepEqual(big.json(), { error: "body over 16 B" });

  const json = app();
  const bad = await json.a.inject({
    method: "POST",
    url: "/r",
    headers: { "content-type": "application/json" },
    payload: "{x",
  });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error.code, "invalid_input");
  const missing = await json.a.inject({ method: "GET", url: "/nowhere" });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(missing.json(), { error: { code: "not_found", message: "not found" } });
});

test("text/plain error bodies are one line: line breaks and control characters from the caller come escaped", async () => {
  const { a, throwing } = app({ errorBody: "text" });
  throwing(new InvalidInputError('invalid type "a\nb\r\u001b[2J\u0000\u2028" \t(tab kept)'));
  const res = await a.inject({ method: "POST", url: "/r" });
  assert.equal(res.statusCode, 400);
  assert.match(String(res.headers["content-type"]), /^text\/plain/);
  assert.equal(res.body, 'invalid type "a\\nb\\r\\u001b[2J\\u0000\\u2028" \t(tab kept)');
});
