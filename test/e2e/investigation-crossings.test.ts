// The Investigation page's derived threshold crossings (spec §4.5 point 1) judged on real Prometheus evaluation: the
// PromQL of crossing-queries.ts runs as range queries against a Prometheus holding exactly the samples written here
// (promtool backfill), and crossings() turns the answers into rows. One row per scope kind and signal: the onset
// must land on the first step at which the written trouble shows.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type BackfilledPrometheus,
  type BackfillSeries,
  startBackfilledPrometheus,
} from "../../apps/console/src/fleet/testdata/backfill.ts";
import { onsetOf } from "../../apps/web/src/pages/investigate/causes.ts";
import { crossingQueries, rangeOf } from "../../apps/web/src/pages/investigate/crossing-queries.ts";
import { crossings } from "../../apps/web/src/pages/investigate/crossings.ts";
import type { Investigation } from "../../apps/web/src/pages/investigate/params.ts";
import type { TimelineEntry } from "../../apps/web/src/pages/investigate/timeline.ts";
import { needsBinary, skipUnless } from "../helpers/env.ts";

const PROM = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const S = 15; // scrape interval of the written history, s
const ONSET = Math.floor(Date.now() / 1000 / 60) * 60 - 3600; // an hour ago, on a minute boundary
const START = ONSET - 20 * 60;
const END = ONSET + 10 * 60;
const times = () => Array.from({ length: (END - START) / S + 1 }, (_, k) => START + k * S);

const pair = (s: string, d: string, sz = "z1", dz = "z2") => ({
  source_node: s,
  destination_node: d,
  source_zone: sz,
  destination_zone: dz,
});
const gauge = (name: string, labels: Record<string, string>, f: (t: number) => number): BackfillSeries => ({
  name,
  labels,
  samples: times().map((t) => [t, f(t)] as const),
});
/** A counter growing by `per(t)` each scrape. */
const counter = (
  name: string,
  labels: Record<string, string>,
  per: (t: number) => number,
): BackfillSeries => {
  let v = 0;
  const samples = times().map((t) => {
    v += per(t);
    return [t, v] as const;
  });
  return { name, labels, samples };
};
const from_ = (at: number, yes: number, no: number) => (t: number) => (t >= at ? yes : no);

const series: BackfillSeries[] = [
  // a -> b: udp loss 40 % from the onset; its reverse stays clean
  gauge("svc_udp_packet_loss_ratio", pair("a", "b"), from_(ONSET, 0.4, 0)),
  gauge("svc_udp_packet_loss_ratio", pair("b", "a"), () => 0),
  // c -> d: every tcp connect fails from ONSET + 120 (node d as a destination; zones z3 -> z4)
  counter(
    "svc_tcp_results_total",
    { ...pair("c", "d", "z3", "z4"), result: "success" },
    from_(ONSET + 120, 0, 5),
  ),
  counter(
    "svc_tcp_results_total",
    { ...pair("c", "d", "z3", "z4"), result: "fail" },
    from_(ONSET + 120, 5, 0),
  ),
  // e -> f: connect time 5 ms, 30 ms from ONSET + 240 (the sum grows 6x as fast)
  counter("svc_tcp_connect_duration_seconds_sum", pair("e", "f"), from_(ONSET + 240, 0.15, 0.025)),
  counter("svc_tcp_connect_duration_seconds_count", pair("e", "f"), () => 5),
  // target web: check failures from ONSET + 60, from node a only
  counter(
    "svc_external_results_total",
    {
      source_node: "a",
      source_zone: "z1",
      target: "web",
      target_kind: "url",
      check_type: "http",
      result: "fail",
    },
    from_(ONSET + 60, 2, 0),
  ),
  counter(
    "svc_external_results_total",
    {
      source_node: "a",
      source_zone: "z1",
      target: "web",
      target_kind: "url",
      check_type: "http",
      result: "success",
    },
    from_(ONSET + 60, 0, 2),
  ),
];

describe(
  "investigation threshold crossings on real Prometheus",
  skipUnless(needsBinary(PROM) ?? needsBinary(PROMTOOL)),
  () => {
    let prom: BackfilledPrometheus;
    before(async () => {
      prom = await startBackfilledPrometheus(PROM, PROMTOOL, series);
    });
    after(async () => {
      await prom?.close();
    });

    async function rows(i: Investigation, targetName?: string): Promise<TimelineEntry[]> {
      const out: TimelineEntry[] = [];
      for (const q of crossingQueries(i, targetName)) {
        const u = new URL(`${prom.url}/api/v1/query_range`);
        const range = rangeOf(i); // as the page asks: steps laid back from the window's end
        u.searchParams.set("query", q.query);
        u.searchParams.set("start", range.start);
        u.searchParams.set("end", range.end);
        u.searchParams.set("step", String(range.stepSeconds));
        const res = await fetch(u);
        const body = (await res.json()) as {
          status: string;
          error?: string;
          data: { result: { values: [number, string][] }[] };
        };
        assert.equal(body.status, "success", `${q.query}: ${body.error}`);
        assert.ok(body.data.result.length <= 1, `${q.name}: one aggregated series`);
        const values = body.data.result[0]?.values ?? [];
        out.push(...crossings({ ...q, points: values.map(([t, v]) => [t, Number(v)] as const) }));
      }
      return out;
    }
    const win = (kind: Investigation["kind"], scope: string): Investigation => ({
      kind,
      scope,
      from: new Date((ONSET - 15 * 60) * 1000).toISOString(),
      to: new Date((ONSET + 10 * 60) * 1000).toISOString(),
    });
    const iso = (t: number) => new Date(t * 1000).toISOString();
    // the first 15 s step at or after `t` (steps are aligned on the window start)
    const step = (t: number) => ONSET - 15 * 60 + Math.ceil((t - (ONSET - 15 * 60)) / 15) * 15;

    const table: { name: string; i: Investigation; target?: string; onset: string | null; title?: RegExp }[] =
      [
        {
          name: "pair a->b: udp loss",
          i: win("pair", "a->b"),
          onset: iso(ONSET),
          title: /udp packet loss above 1% \(40%\)/,
        },
        { name: "pair b->a: clean", i: win("pair", "b->a"), onset: null },
        // rate over 1m: the fail share passes 1 % at the step of the first failing scrape (its sample is in the range)
        {
          name: "node d (as a destination): tcp failures",
          i: win("node", "d"),
          onset: iso(step(ONSET + 120)),
          title: /tcp connect failures above 1%/,
        },
        {
          name: "node c (as a source): tcp failures",
          i: win("node", "c"),
          onset: iso(step(ONSET + 120)),
        },
        {
          name: "zone pair z3->z4: tcp failures",
          i: win("zone-pair", "z3->z4"),
          onset: iso(step(ONSET + 120)),
        },
        {
          name: "pair e->f: connect time over twice the median",
          i: win("pair", "e->f"),
          onset: iso(step(ONSET + 240)),
          title: /tcp connect time above twice the window median/,
        },
        {
          name: "target web: check failures",
          i: win("target", "t-1"),
          target: "web",
          onset: iso(step(ONSET + 60)),
          title: /target check failures above 1%/,
        },
        { name: "cluster: the earliest of all", i: win("cluster", ""), onset: iso(ONSET) },
      ];
    for (const row of table) {
      test(row.name, async () => {
        const r = await rows(row.i, row.target);
        assert.equal(onsetOf(r), row.onset, JSON.stringify(r.map((x) => [x.timestamp, x.title])));
        if (row.title)
          assert.ok(
            r.some((x) => row.title?.test(x.title) && x.severity !== "info"),
            JSON.stringify(r.map((x) => x.title)),
          );
      });
    }

    test("label values are escaped: a scope with quotes and backslashes is a valid query that matches nothing", async () => {
      assert.deepEqual(await rows(win("node", 'x"} or vector(1) or {a="\\')), []);
    });
  },
);
