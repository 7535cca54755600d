import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuditRowView } from "@svc/contract";
import { auditTimeline, classifyAudit, STORE_NOTHING_ACTIONS } from "./audit-rows.ts";

const T0 = Date.parse("2026-11-25T10:00:00Z");
function audit(
  i: number,
  action: string,
  outcome: AuditRowView["outcome"] = "allowed",
  who = "alice",
): AuditRowView {
  return {
    id: `a${i}`,
    at: new Date(T0 + i * 1000).toISOString(),
    subject: `local:${who}`,
    subjectDisplay: who,
    action,
    outcome,
    remoteAddr: "198.18.0.9",
  };
}

test("the four store-nothing POST routes are the ones §4.5 names, as the console writes them", () => {
  assert.deepEqual([...STORE_NOTHING_ACTIONS].sort(), [
    "POST /api/v1/alert-rules/preview",
    "POST /api/v1/checks/projection",
    "POST /api/v1/metrics/query",
    "POST /api/v1/metrics/query_range",
  ]);
});

test("classification per §4.5 point 4", () => {
  const table: [string, AuditRowView["outcome"], string][] = [
    ["GET /api/v1/audit", "allowed", "folded"],
    ["GET /api/v1/audit", "denied", "folded"],
    ["POST /api/v1/metrics/query", "allowed", "folded"],
    ["POST /api/v1/checks/projection", "allowed", "folded"],
    ["POST /api/v1/import?dryRun=true", "allowed", "folded"],
    ["POST /api/v1/import", "allowed", "ranked"],
    ["POST /api/v1/targets", "allowed", "ranked"],
    ["DELETE /api/v1/targets/:id", "allowed", "ranked"],
    ["POST /api/v1/targets", "denied", "own-row"],
    ["POST /api/v1/targets", "error", "own-row"],
    ["POST /api/v1/auth/login", "allowed", "own-row"],
    ["POST /api/v1/auth/login", "denied", "own-row"],
    ["GET /api/v1/auth/oidc/callback", "allowed", "own-row"],
    ["POST /api/v1/auth/logout", "allowed", "own-row"],
    ["POST /api/v1/auth/password", "allowed", "own-row"],
  ];
  for (const [action, outcome, want] of table) {
    assert.equal(classifyAudit({ action, outcome }), want, `${action} ${outcome}`);
  }
});

test("rows outside the window are dropped; reads fold into one row at the newest read, counting them", () => {
  const rows = auditTimeline(
    [
      audit(0, "GET /api/v1/matrix"),
      audit(5, "GET /api/v1/pairs/:source/:destination", "allowed", "bob"),
      audit(7, "POST /api/v1/metrics/query_range"),
      audit(8, "PUT /api/v1/checks/:id"),
      audit(9, "POST /api/v1/targets", "denied"),
      audit(100, "POST /api/v1/targets"), // after the window
    ],
    T0,
    T0 + 60_000,
  );
  assert.deepEqual(
    rows.map((r) => [r.title, r.excluded ?? false, r.timestamp]),
    [
      ["PUT /api/v1/checks/:id by alice", false, new Date(T0 + 8000).toISOString()],
      ["POST /api/v1/targets by alice (denied)", true, new Date(T0 + 9000).toISOString()],
      ["3 read-only requests", true, new Date(T0 + 7000).toISOString()],
    ],
  );
  assert.match(rows[2]?.detail ?? "", /alice, bob/);
  assert.equal(rows[1]?.severity, "warn");
});
