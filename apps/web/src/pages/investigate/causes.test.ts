// Spec §4.5, one table row per rule: onset, the 5-minute candidate window, weights, excluded audit rows, score and
// label. The rows go through auditTimeline and crossings like the page's, so rule 4 is judged on real audit rows.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuditRowView } from "@svc/contract";
import { auditTimeline } from "./audit-rows.ts";
import { CANDIDATE_WINDOW_S, causeLabel, onsetOf, rankCauses, WEIGHTS } from "./causes.ts";
import { crossings } from "./crossings.ts";
import type { TimelineEntry, TimelineKind } from "./timeline.ts";

const ONSET = Date.parse("2026-11-25T10:00:00Z");
const at = (deltaS: number) => new Date(ONSET - deltaS * 1000).toISOString();

function row(kind: TimelineKind, deltaS: number, over: Partial<TimelineEntry> = {}): TimelineEntry {
  return {
    timestamp: at(deltaS),
    kind,
    severity: "warn",
    title: `${kind} ${deltaS}`,
    detail: "",
    reference: "",
    ...over,
  };
}
const onsetRow = row("threshold-crossing", 0, { severity: "error", title: "udp packet loss above 1% (40%)" });

function audit(deltaS: number, action: string, outcome: AuditRowView["outcome"] = "allowed"): AuditRowView {
  return {
    id: `a${deltaS}`,
    at: at(deltaS),
    subject: "u1",
    subjectDisplay: "alice",
    action,
    outcome,
    remoteAddr: "198.18.0.9",
  };
}
const auditRows = (rows: AuditRowView[]) => auditTimeline(rows, ONSET - 3_600_000, ONSET + 3_600_000);

interface Case {
  rule: string;
  rows: TimelineEntry[];
  onset: string | null;
  /** titles ranked, in order, with their labels */
  ranked: [string, string][];
}

const cases: Case[] = [
  {
    rule: "1: no non-info threshold crossing, no onset, nothing ranked",
    rows: [row("k8s-event", 10), row("threshold-crossing", 5, { severity: "info", title: "back under" })],
    onset: null,
    ranked: [],
  },
  {
    rule: "1: onset is the earliest non-info crossing (an info crossing earlier does not count)",
    rows: [
      row("threshold-crossing", 400, { severity: "info", title: "recovery" }),
      row("threshold-crossing", -60, { severity: "warn", title: "rtt later" }),
      onsetRow,
      row("mtr-path-change", 30),
    ],
    onset: at(0),
    ranked: [["mtr-path-change 30", "30s before the onset · weight 3"]],
  },
  {
    rule: "1: crossings derived from a loss series set the onset at the first point above 1%",
    rows: [
      ...crossings({
        signal: "loss",
        name: "udp packet loss",
        query: "q",
        points: [
          [ONSET / 1000 - 30, 0],
          [ONSET / 1000 - 15, 0.01],
          [ONSET / 1000, 0.4],
        ],
      }),
      row("fleet-event", 60),
    ],
    onset: at(0),
    ranked: [["fleet-event 60", "60s before the onset · weight 2"]],
  },
  {
    rule: "1: onset by RTT: the first point above twice the window median",
    rows: [
      ...crossings({
        signal: "rtt",
        name: "tcp connect time",
        query: "q",
        points: [
          [ONSET / 1000 - 45, 0.005],
          [ONSET / 1000 - 30, 0.005],
          [ONSET / 1000 - 15, 0.01], // exactly twice the median: not above
          [ONSET / 1000, 0.03],
          [ONSET / 1000 + 15, 0.005],
        ],
      }),
      row("k8s-event", 20),
    ],
    onset: at(0),
    ranked: [["k8s-event 20", "20s before the onset · weight 3"]],
  },
  {
    rule: "2: candidates are rows 0-300 s before the onset, both ends in; later or older rows are not",
    rows: [onsetRow, row("k8s-event", 0), row("k8s-event", 300), row("k8s-event", 301), row("k8s-event", -1)],
    onset: at(0),
    ranked: [
      ["k8s-event 0", "0s before the onset · weight 3"],
      ["k8s-event 300", "300s before the onset · weight 3"],
    ],
  },
  {
    rule: "3: weights path change 3, k8s event 3, fleet event 2, audit row 2, maintenance 1, all else 0",
    rows: [
      onsetRow,
      row("mtr-path-change", 60),
      row("k8s-event", 60),
      row("fleet-event", 60),
      ...auditRows([audit(60, "POST /api/v1/checks")]),
      row("maintenance-window", 60),
      row("annotation", 60),
      row("diagnostic-run", 60),
      row("firing-alert", 60),
      row("threshold-crossing", 60, { severity: "info" }),
    ],
    onset: at(0),
    ranked: [
      ["k8s-event 60", "60s before the onset · weight 3"],
      ["mtr-path-change 60", "60s before the onset · weight 3"],
      ["fleet-event 60", "60s before the onset · weight 2"],
      ["POST /api/v1/checks by alice", "60s before the onset · weight 2"],
      ["maintenance-window 60", "60s before the onset · weight 1"],
      // weight 0: candidates with score 0, last; threshold crossings are the symptom, never candidates
      ["annotation 60", "60s before the onset · weight 0"],
      ["diagnostic-run 60", "60s before the onset · weight 0"],
      ["firing-alert 60", "60s before the onset · weight 0"],
    ],
  },
  {
    rule: "4: read-only requests and the four store-nothing POSTs fold into one unranked row",
    rows: [
      onsetRow,
      ...auditRows([
        audit(10, "GET /api/v1/matrix"),
        audit(11, "POST /api/v1/metrics/query"),
        audit(12, "POST /api/v1/metrics/query_range"),
        audit(13, "POST /api/v1/checks/projection"),
        audit(14, "POST /api/v1/alert-rules/preview"),
        audit(20, "PUT /api/v1/checks/:id"),
      ]),
    ],
    onset: at(0),
    ranked: [["PUT /api/v1/checks/:id by alice", "20s before the onset · weight 2"]],
  },
  {
    rule: "4: denied and error rows, sign-in, sign-out and password change are never ranked",
    rows: [
      onsetRow,
      ...auditRows([
        audit(10, "DELETE /api/v1/targets/:id", "denied"),
        audit(11, "POST /api/v1/targets", "error"),
        audit(12, "POST /api/v1/auth/login"),
        audit(13, "GET /api/v1/auth/oidc/callback"),
        audit(14, "POST /api/v1/auth/logout"),
        audit(15, "POST /api/v1/auth/password"),
      ]),
    ],
    onset: at(0),
    ranked: [],
  },
  {
    rule: "5: score = weight x (1 - delta/300), highest first; the label names delta and weight",
    rows: [onsetRow, row("maintenance-window", 0), row("mtr-path-change", 150), row("fleet-event", 30)],
    onset: at(0),
    ranked: [
      ["fleet-event 30", "30s before the onset · weight 2"], // 2 x 0.9 = 1.8
      ["mtr-path-change 150", "150s before the onset · weight 3"], // 3 x 0.5 = 1.5
      ["maintenance-window 0", "0s before the onset · weight 1"], // 1 x 1 = 1
    ],
  },
];

for (const c of cases) {
  test(`§4.5 rule ${c.rule}`, () => {
    const r = rankCauses(c.rows);
    assert.equal(r.onset, c.onset);
    assert.deepEqual(
      r.causes.map((x) => [x.entry.title, x.label]),
      c.ranked,
    );
  });
}

test("§4.5 rule 5: the scores, exactly", () => {
  const r = rankCauses([
    onsetRow,
    row("fleet-event", 30),
    row("mtr-path-change", 150),
    row("k8s-event", 300),
  ]);
  assert.deepEqual(
    r.causes.map((x) => [x.deltaSeconds, x.weight, x.score]),
    [
      [30, 2, 2 * (1 - 30 / 300)],
      [150, 3, 1.5],
      [300, 3, 0],
    ],
  );
});

test("§4.5 rule 5: delta is whole seconds, the score uses the delta the label shows", () => {
  const r = rankCauses([onsetRow, row("k8s-event", 29.6)]);
  assert.equal(r.causes[0]?.deltaSeconds, 30);
  assert.equal(r.causes[0]?.label, causeLabel(30, 3));
  assert.equal(r.causes[0]?.score, 3 * (1 - 30 / CANDIDATE_WINDOW_S));
});

test("§4.5 rule 2: the onset's own threshold crossing and earlier info crossings are not candidates", () => {
  const r = rankCauses([row("threshold-crossing", 30, { severity: "info", title: "back under" }), onsetRow]);
  assert.deepEqual(r.causes, []);
});

test("weights table is §4.5 point 3", () => {
  assert.deepEqual(
    Object.entries(WEIGHTS).filter(([, w]) => w > 0),
    [
      ["mtr-path-change", 3],
      ["k8s-event", 3],
      ["fleet-event", 2],
      ["audit-row", 2],
      ["maintenance-window", 1],
    ],
  );
});

test("onsetOf ignores rows whose timestamp does not parse", () => {
  assert.equal(onsetOf([row("threshold-crossing", 0, { timestamp: "not a time" })]), null);
});
