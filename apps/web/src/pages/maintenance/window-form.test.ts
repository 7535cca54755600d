import assert from "node:assert/strict";
import { test } from "node:test";
import { isActive, scopeWords, type WindowDraft, windowBody } from "./window-form.ts";

const draft = (over: Partial<WindowDraft>): WindowDraft => ({
  scope: "fleet",
  node: "",
  source: "",
  destination: "",
  target: "",
  start: "2026-01-01T02:00",
  end: "2026-01-01T03:00",
  reason: "",
  ...over,
});

test("a pair window: its fields trimmed, the others sent empty, times as instants", () => {
  const r = windowBody(draft({ scope: "pair", source: " node-1 ", destination: "node-2", node: "stale" }));
  assert.ok(r.ok);
  assert.equal(r.body.source, "node-1");
  assert.equal(r.body.node, "", "a field the scope does not use is sent empty");
  assert.equal(r.body.startAt, new Date("2026-01-01T02:00").toISOString());
});

test("refusals: no end after start, a scope without its field, no times", () => {
  assert.deepEqual(windowBody(draft({ end: "2026-01-01T02:00" })), {
    ok: false,
    error: "The window must end after it starts.",
  });
  assert.deepEqual(windowBody(draft({ scope: "node" })), {
    ok: false,
    error: "Fill in the node of this scope.",
  });
  assert.deepEqual(windowBody(draft({ start: "" })), { ok: false, error: "Choose a start and an end." });
});

test("active over [startAt, endAt); scope in words", () => {
  const w = { startAt: "2026-01-01T00:00:00Z", endAt: "2026-01-01T01:00:00Z" };
  assert.ok(isActive(w, Date.parse("2026-01-01T00:00:00Z")));
  assert.ok(!isActive(w, Date.parse("2026-01-01T01:00:00Z")));
  assert.equal(
    scopeWords({ scope: "pair", node: "", source: "a", destination: "b", target: "" }),
    "pair a -> b",
  );
});
