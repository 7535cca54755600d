/**
 * The tier rules (tiers.ts, docs/decisions.md "Fleet tiers") judged on real Prometheus evaluation: each row is one
 * pair whose counter history the test writes as TSDB blocks (testdata/backfill.ts), read at a fixed instant through
 * both figure readers (one pair's full values, and the fleet-wide exceptions-only read the matrix uses).
 * Scrapes every 5 s; each scrape adds the probes of the last 5 s (2 s probe interval: 2 or 3 results). As the
 * agent does, a pair's two result counters exist from its first result on (the other one at 0).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FleetProtocol, FleetTier } from "@svc/contract";
import { needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import { pairKey } from "./figure-map.ts";
import { fleetFigures, scopedFigures } from "./figures.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { eq } from "./promql.ts";
import {
  type BackfilledPrometheus,
  type BackfillSeries,
  startBackfilledPrometheus,
} from "./testdata/backfill.ts";
import { tierReason, verdictOf } from "./tiers.ts";

const PROM = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const opts = skipUnless(needsBinary(PROM) ?? needsBinary(PROMTOOL));

const S = 5; // scrape interval, s
const AT = Math.floor(Date.now() / 1000 / 60) * 60 - 3600; // judged one hour ago, on a minute boundary
const START = AT - 15 * 60;

/** One scrape's increments: results since the previous scrape (undefined: no scrape then). */
type Step = { ok: number; fail: number; loss?: number } | undefined;

interface Row {
  name: string;
  protocol: FleetProtocol;
  /** the scrapes, oldest first; the last one is at AT */
  steps: Step[];
  /** counters start from these (an agent that ran before the window) */
  base?: { ok: number; fail: number };
  /** reset the counters to 0 before this step index (an agent restart) */
  resetAt?: number;
  want: FleetTier;
  why?: RegExp;
}

const healthy = (n: number): Step[] => Array.from({ length: n }, (_, i) => ({ ok: i % 2 ? 3 : 2, fail: 0 }));
const down = (n: number): Step[] => Array.from({ length: n }, (_, i) => ({ ok: 0, fail: i % 2 ? 3 : 2 }));
const WINDOW = (15 * 60) / S; // scrapes in the written history

const rows: Row[] = [
  { name: "steady", protocol: "tcp", steps: healthy(WINDOW), want: "healthy" },
  {
    name: "outage-now",
    protocol: "tcp",
    steps: [...healthy(WINDOW - 2), { ok: 1, fail: 1 }, { ok: 0, fail: 3 }],
    want: "failing",
    why: /The latest probe results all failed/,
  },
  {
    name: "outage-first-scrape",
    protocol: "tcp",
    steps: [...healthy(WINDOW - 1), { ok: 1, fail: 2 }],
    want: "degraded",
  },
  {
    name: "healed",
    protocol: "tcp",
    steps: [...healthy(WINDOW - 60), ...down(59), { ok: 3, fail: 0 }],
    want: "degraded",
    why: /latest probes succeeded; the last 5 minutes still hold failures/,
  },
  {
    name: "long-down",
    protocol: "tcp",
    steps: down(WINDOW),
    want: "failing",
  },
  {
    name: "flapping-mixed",
    protocol: "tcp",
    steps: Array.from({ length: WINDOW }, (_, i) => (i % 3 === 0 ? { ok: 2, fail: 1 } : { ok: 0, fail: 3 })),
    want: "failing",
  },
  {
    name: "flapping-ok-now",
    protocol: "tcp",
    steps: [
      ...Array.from({ length: WINDOW - 1 }, (_, i) =>
        i % 3 === 0 ? { ok: 3, fail: 0 } : { ok: 0, fail: 3 },
      ),
      { ok: 3, fail: 0 },
    ],
    want: "degraded",
    why: /latest probes succeeded/,
  },
  {
    name: "restart-then-down",
    protocol: "tcp",
    base: { ok: 5000, fail: 0 },
    steps: [...healthy(WINDOW - 3), { ok: 0, fail: 0 }, { ok: 0, fail: 2 }, { ok: 0, fail: 3 }],
    resetAt: WINDOW - 3,
    want: "failing",
    why: /latest probe results all failed/,
  },
  {
    name: "restart-healthy",
    protocol: "tcp",
    base: { ok: 5000, fail: 0 },
    steps: [...healthy(WINDOW - 2), { ok: 2, fail: 0 }, { ok: 3, fail: 0 }],
    resetAt: WINDOW - 2,
    want: "healthy",
  },
  {
    name: "new-failing",
    protocol: "tcp",
    steps: [...Array(WINDOW - 1).fill(undefined), { ok: 0, fail: 2 }],
    want: "failing",
    why: /latest probe results all failed/,
  },
  {
    name: "new-healthy",
    protocol: "tcp",
    steps: [...Array(WINDOW - 1).fill(undefined), { ok: 2, fail: 0 }],
    want: "healthy",
  },
  {
    name: "scrape-gap",
    protocol: "tcp",
    steps: [...healthy(WINDOW - 25), ...Array(24).fill(undefined), { ok: 2, fail: 0 }],
    want: "healthy",
  },
  {
    name: "udp-total-loss",
    protocol: "udp",
    steps: [
      ...healthy(WINDOW - 1).map((s) => ({ ok: s?.ok ?? 0, fail: 0, loss: 0 })),
      { ok: 0, fail: 1, loss: 1 },
    ],
    want: "failing",
  },
  {
    name: "udp-loss-healed",
    protocol: "udp",
    steps: [
      ...healthy(WINDOW - 40).map((s) => ({ ok: s?.ok ?? 0, fail: 0, loss: 0 })),
      ...down(39).map((s) => ({ ok: 0, fail: s?.fail ?? 0, loss: 1 })),
      { ok: 2, fail: 0, loss: 0 },
    ],
    want: "degraded",
    why: /latest probes succeeded/,
  },
  {
    name: "icmp-partial-loss",
    protocol: "icmp",
    steps: healthy(WINDOW).map((s) => ({ ok: s?.ok ?? 0, fail: 0, loss: 0.3 })),
    want: "degraded",
  },
];

/** A pmtu history: one run every 30 s (every 6th scrape), the verdict of each run, oldest first; last run at AT. */
interface PmtuRow {
  name: string;
  runs: ("ok" | "reduced" | "blackhole")[];
  want: string;
  bytes?: number;
}

const pmtuRows: PmtuRow[] = [
  { name: "pmtu-full", runs: Array(30).fill("ok"), want: "Full size", bytes: 1500 },
  { name: "pmtu-reduced", runs: Array(30).fill("reduced"), want: "Reduced", bytes: 1400 },
  {
    name: "pmtu-hole-now",
    runs: [...Array(29).fill("ok"), "blackhole"],
    want: "Black hole",
    bytes: 1400,
  },
  { name: "pmtu-hole-long", runs: Array(30).fill("blackhole"), want: "Black hole", bytes: 1400 },
  {
    name: "pmtu-recovering",
    runs: [...Array(20).fill("ok"), ...Array(8).fill("blackhole"), "ok", "ok"],
    want: "Recovering",
    bytes: 1500,
  },
  {
    name: "pmtu-hole-long-ago",
    runs: [...Array(3).fill("blackhole"), ...Array(37).fill("ok")], // the last hole 18.5 min ago
    want: "Full size",
    bytes: 1500,
  },
];

function pmtuSeriesOf(r: PmtuRow): BackfillSeries[] {
  const labels = { source_node: r.name, destination_node: "x", source_zone: "z", destination_zone: "z" };
  const ok: [number, number][] = [];
  const fail: [number, number][] = [];
  const bytes: [number, number][] = [];
  const probe: [number, number][] = [];
  let c = { ok: 0, fail: 0 };
  const scrapes = r.runs.length * 6;
  for (let i = 0; i < scrapes; i++) {
    const t = AT - (scrapes - 1 - i) * S;
    const run = i % 6 === 5 ? r.runs[(i - 5) / 6] : undefined; // the run just before this scrape
    let size = bytes.at(-1)?.[1] ?? 1500;
    if (run === "blackhole") {
      c = { ...c, fail: c.fail + 1 };
      size = 1400;
    } else if (run) {
      c = { ...c, ok: c.ok + 1 };
      size = run === "reduced" ? 1400 : 1500;
    }
    ok.push([t, c.ok]);
    fail.push([t, c.fail]);
    bytes.push([t, size]);
    probe.push([t, 1500]);
  }
  return [
    { name: "svc_pmtu_results_total", labels: { ...labels, result: "success" }, samples: ok },
    { name: "svc_pmtu_results_total", labels: { ...labels, result: "fail" }, samples: fail },
    { name: "svc_pmtu_bytes", labels, samples: bytes },
    { name: "svc_pmtu_probe_bytes", labels, samples: probe },
  ];
}

function seriesOf(r: Row): BackfillSeries[] {
  const labels = (extra: Record<string, string> = {}) => ({
    source_node: r.name,
    destination_node: "x",
    source_zone: "z",
    destination_zone: "z",
    ...extra,
  });
  const ok: [number, number][] = [];
  const fail: [number, number][] = [];
  const loss: [number, number][] = [];
  let c = { ok: r.base?.ok ?? 0, fail: r.base?.fail ?? 0 };
  r.steps.forEach((step, i) => {
    if (i === r.resetAt) c = { ok: 0, fail: 0 };
    if (!step) return;
    const t = AT - (r.steps.length - 1 - i) * S;
    c = { ok: c.ok + step.ok, fail: c.fail + step.fail };
    // the agent creates both result series with a peer's first result (the other at 0)
    ok.push([t, c.ok]);
    fail.push([t, c.fail]);
    if (step.loss !== undefined) loss.push([t, step.loss]);
  });
  const results = `svc_${r.protocol}_results_total`;
  const out: BackfillSeries[] = [];
  if (ok.length) out.push({ name: results, labels: labels({ result: "success" }), samples: ok });
  if (fail.length) out.push({ name: results, labels: labels({ result: "fail" }), samples: fail });
  if (loss.length) out.push({ name: `svc_${r.protocol}_packet_loss_ratio`, labels: labels(), samples: loss });
  return out;
}

describe("tier rules over real Prometheus data", opts, () => {
  let prom: BackfilledPrometheus;
  let client: PrometheusClient;
  before(async () => {
    assert.ok(START < AT);
    prom = await startBackfilledPrometheus(PROM, PROMTOOL, [
      ...rows.flatMap(seriesOf),
      ...pmtuRows.flatMap(pmtuSeriesOf),
    ]);
    client = new PrometheusClient({
      url: prom.url,
      queryTimeoutMs: 10_000,
      maxResponseBytes: 1 << 24,
    }).atTime(AT);
  });
  after(async () => prom?.close());

  for (const r of rows)
    test(`${r.protocol} ${r.name}: ${r.want}`, async () => {
      const scoped = await scopedFigures(client, "svc", r.protocol, eq("source_node", r.name));
      const f = scoped.get(pairKey(r.name, "x"));
      assert.equal(verdictOf(r.protocol, f).tier, r.want, JSON.stringify(f));
      const why = tierReason(r.protocol, f);
      if (r.why) assert.match(why ?? "", r.why);
      else assert.equal(why, undefined);
      const fleet = await fleetFigures(client, "svc", r.protocol, new Map([[r.name, ["x"]]]));
      const g = fleet.get(pairKey(r.name, "x"));
      assert.equal(verdictOf(r.protocol, g).tier, r.want, `fleet read: ${JSON.stringify(g)}`);
    });

  for (const r of pmtuRows)
    test(`pmtu ${r.name}: ${r.want}`, async () => {
      const scoped = await scopedFigures(client, "svc", "pmtu", eq("source_node", r.name));
      const v = verdictOf("pmtu", scoped.get(pairKey(r.name, "x")));
      assert.equal(v.pmtu?.badge, r.want, JSON.stringify(scoped.get(pairKey(r.name, "x"))));
      assert.equal(v.pmtu?.bytes, r.bytes);
      const fleet = await fleetFigures(client, "svc", "pmtu", new Map([[r.name, ["x"]]]));
      assert.equal(verdictOf("pmtu", fleet.get(pairKey(r.name, "x"))).pmtu?.badge, r.want, "fleet read");
    });
});
