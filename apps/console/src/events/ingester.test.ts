/** Unit: what the ingester stores of one wire event (bounds, storable text, time, scope) and the summary wording. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventMessage } from "@svc/protocol";
import { PAYLOAD_MAX_BYTES, toNewEvent } from "./ingester.ts";
import { summarize } from "./summary.ts";

function wire(over: Partial<EventMessage>): EventMessage {
  return {
    topic: "checks",
    seq: 7,
    type: "CheckObserved",
    timestamp_unix_ns: Date.UTC(2026, 0, 1) * 1_000_000,
    severity: "warn",
    scope: "a->b",
    payload_json: JSON.stringify({ type: "tcp", success: false, error: "connection refused" }),
    missed: 0,
    ...over,
  };
}

test("a wire event becomes a bounded, storable row with its summary", () => {
  const e = toNewEvent(wire({}), 5);
  assert.equal(e.at, Date.UTC(2026, 0, 1));
  assert.equal(e.atNs, BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n);
  assert.equal(e.summary, "Check observed: tcp a->b failed: connection refused");
  assert.equal(toNewEvent(wire({ scope: " A => B " }), 5).scope, "A->B");
  assert.equal(toNewEvent(wire({ scope: "a > b" }), 5).scope, "a->b");
  // no controller time: the arrival time
  const late = toNewEvent(wire({ timestamp_unix_ns: 0 }), 1234);
  assert.equal(late.at, 1234);
  assert.equal(late.atNs, 1234n * 1_000_000n);
  // too large, not JSON, not an object
  const big = toNewEvent(wire({ payload_json: JSON.stringify({ x: "y".repeat(PAYLOAD_MAX_BYTES) }) }), 5);
  assert.equal(big.payload.truncated, true);
  assert.deepEqual(toNewEvent(wire({ payload_json: "{" }), 5).payload, { unparsed: true, bytes: 1 });
  assert.deepEqual(toNewEvent(wire({ payload_json: "[1]" }), 5).payload, { value: [1] });
  assert.deepEqual(toNewEvent(wire({ payload_json: "" }), 5).payload, {});
  // text PostgreSQL cannot store, and overlong fields
  const odd = toNewEvent(
    wire({
      type: `T${"x".repeat(100)}`,
      severity: "s".repeat(40),
      scope: `n\u0000${"z".repeat(600)}`,
      payload_json: JSON.stringify({ s: "a\u0000b\ud800c" }),
    }),
    5,
  );
  assert.equal(odd.type.length, 64);
  assert.equal(odd.severity.length, 32);
  assert.equal(odd.scope.length, 512);
  assert.ok(!odd.scope.includes("\u0000"));
  assert.equal(odd.payload.s, "a\uFFFDb\uFFFDc");
});

test("summaries open with the type's words", () => {
  assert.equal(
    summarize("TopologyChanged", "node-3", { change: "agent-left", reason: "evicted" }),
    "Topology changed: agent-left node-3 (evicted)",
  );
  assert.equal(
    summarize("TopologyChanged", "node-3", { change: "node-readiness" }),
    "Topology changed: node-readiness node-3",
  );
  assert.equal(
    summarize("CheckObserved", "a->b", { type: "udp", success: true }),
    "Check observed: udp a->b ok",
  );
  assert.equal(summarize("MTRTriggered", "a->b", { reason: "loss" }), "MTR triggered: a->b (loss)");
  assert.equal(
    summarize("MTRCompleted", "a->b", { success: true, details: { hops: [1, 2, 3] } }),
    "MTR completed: a->b ok, 3 hops",
  );
  assert.equal(
    summarize("DiagnosticProgress", "a->b", { state: "undelivered", type: "tcp" }),
    "Diagnostic progress: undelivered tcp a->b",
  );
  assert.equal(summarize("Surprise", "x", {}), "Surprise: x");
  assert.equal(
    summarize("CheckObserved", "a->b", { error: "line1\nline2", success: false }),
    "Check observed: a->b failed: line1 line2",
  );
  assert.equal(summarize("CheckObserved", "x".repeat(400), {}).length, 300);
  // prototype keys in a payload are data, never inherited lookups
  assert.equal(
    summarize("TopologyChanged", "n", JSON.parse('{"__proto__": {"change": "x"}}')),
    "Topology changed: n",
  );
});
