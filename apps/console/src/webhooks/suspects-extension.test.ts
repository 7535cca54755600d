/**
 * The alert webhooks' extension key `suspects`: the suspects whose matrix blocks hold the alert's pair (or node)
 * come first and are flagged; the body keeps every key of the alert family (spec §2.13).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetSuspects, Suspect } from "@svc/contract";
import { alertBody, suspectsFor } from "./dispatcher.ts";

const s = (id: string, over: Partial<Suspect>): Suspect => ({
  id,
  kind: "node",
  mode: "inbound",
  effect: "fail",
  protocols: ["tcp"],
  confidence: 1,
  explains: 11,
  evidence: [`${id} evidence`],
  scope: [],
  role: "suspect",
  since: "2026-11-28T00:00:00.000Z",
  ...over,
});
const answer: FleetSuspects = {
  generatedAt: "2026-11-28T00:00:00.000Z",
  failingCells: 12,
  explainedCells: 12,
  observedCells: 100,
  suspects: [
    s("zone-pair:a|b", {
      kind: "zone-pair",
      zones: ["a", "b"],
      scope: [{ sources: ["n1"], destinations: ["n3"] }],
    }),
    s("node:n2:inbound", { node: "n2", scope: [{ sources: null, destinations: ["n2"] }] }),
    s("alt", { role: "alternative", node: "n2", scope: [{ sources: null, destinations: null }] }),
  ],
};

test("the suspect that holds the alert's pair comes first, flagged; alternatives are left out", () => {
  const got = suspectsFor({ source_node: "n5", destination_node: "n2", alertname: "x" }, answer);
  assert.deepEqual(
    got.map((x) => [x.id, x.explainsAlert]),
    [
      ["node:n2:inbound", true],
      ["zone-pair:a|b", false],
    ],
  );
  assert.deepEqual(got[0]?.element, { node: "n2" });
  assert.equal(got[0]?.evidence, "node:n2:inbound evidence");
  assert.deepEqual(suspectsFor({ node: "n3" }, answer)[0]?.id, "zone-pair:a|b");
  assert.deepEqual(suspectsFor({}, undefined), []);
});

test("the body keeps the alert family's keys and adds suspects", () => {
  const body = JSON.parse(
    alertBody(
      {
        event: "alert.fired",
        ruleId: "r1",
        labels: { a: "b" },
        firedAt: "2026-11-28T00:00:00.000Z",
        at: "x",
      },
      0,
      suspectsFor({ source_node: "n1", destination_node: "n3" }, answer),
    ).toString(),
  ) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ["event", "alert", "sentAt", "suspects"]);
  assert.deepEqual(Object.keys(body.alert as object), ["ruleId", "labels", "firedAt", "resolvedAt"]);
  assert.equal((body.suspects as { id: string }[])[0]?.id, "zone-pair:a|b");
});
