/**
 * detection: time to red, and back, in a lab (issue 20). A lab of 3 agents in network namespaces (probe interval P,
 * scrape interval S, the console's recording rules loaded, console fed by the controller's events) runs healthy for
 * `--warmup` seconds; then, `--rounds` times: a total tcp outage on node-1 -> node-2 (nftables drop) and a 30 %
 * udp loss on node-2 -> node-3. Measured from the fault (or the heal) to:
 *   - the pair's tier in GET /api/v1/fleet/pairs/{s}/{d} (failing for the outage, degraded or worse for the loss;
 *     out of failing after the heal), polled every 250 ms;
 *   - the cell's tier painted in the Matrix page in headless Chromium (signed in as the lab's admin, the page left
 *     open, updated by the matrix topic's pushes), polled every 250 ms.
 *
 *   npm run bench -- detection [--warmup 180] [--rounds 3] [--probe 2] [--scrape 5]
 *
 * Goal: outage red <= P + S + 2 s and out of red <= P + S + 2 s. Needs root, prometheus and chromium.
 */
import { parseArgs } from "node:util";
import { recordingRulesYaml } from "@svc/console/recording-rules";
import type { FleetTier } from "@svc/contract";
import { type Fault, Lab } from "@svc/lab";
import { launchChromium } from "../../test/e2e/web-harness.ts";
import {
  cellTier,
  labConsoleCookie,
  labMatrixPage,
  msUntil,
  pairTier,
} from "../../test/helpers/lab-tiers.ts";
import { median, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    warmup: { type: "string", default: "180" },
    rounds: { type: "string", default: "3" },
    probe: { type: "string", default: "2" },
    scrape: { type: "string", default: "5" },
  },
});
const warmupS = Number(values.warmup);
const rounds = Number(values.rounds);
const P = Number(values.probe);
const S = Number(values.scrape);
if (!(warmupS >= 0) || !(rounds >= 1) || !(P >= 1) || !(S >= 1))
  throw new Error("bad --warmup/--rounds/--probe/--scrape");
if (process.getuid?.() !== 0) throw new Error("detection needs root (network namespaces and nftables)");
const LIMIT_MS = 420_000;
const POLL_MS = 250;

const lab = new Lab({
  agents: 3,
  netns: true,
  scrapeIntervalSeconds: S,
  prometheusRules: [
    { name: "svc-recording-rules.yml", yaml: recordingRulesYaml("svc", S, Math.max(15, S), false) },
  ],
  config: {
    checkers: {
      tcp: { interval: `${P}s`, timeout: "1s" },
      udp: { interval: `${P}s`, timeout: "500ms" },
      icmp: { interval: `${P}s`, timeout: "1s" },
    },
  },
  log: (l) => console.log(`lab: ${l}`),
});

type Want = (t: FleetTier) => boolean;
const rank: Record<FleetTier, number> = {
  unplanned: 0,
  notrun: 1,
  nodata: 2,
  healthy: 3,
  degraded: 4,
  failing: 5,
};
const until = (read: () => Promise<FleetTier | undefined>, want: Want) =>
  msUntil(read, want, LIMIT_MS, POLL_MS);

interface Case {
  name: string;
  fault: Fault;
  s: string;
  d: string;
  protocol: "tcp" | "udp";
  red: Want;
  /** after the heal: what "out of red" means (absent: not measured; a 5-minute window keeps loss amber) */
  out?: Want;
  page: "tcp" | "udp";
}
const cases: Case[] = [
  {
    name: "tcp outage node-1 -> node-2",
    fault: { kind: "drop", from: "node-1", to: "node-2", protocol: "tcp" },
    s: "node-1",
    d: "node-2",
    protocol: "tcp",
    red: (t) => t === "failing",
    out: (t) => t !== "failing",
    page: "tcp",
  },
  {
    name: "udp 30 % loss node-2 -> node-3",
    fault: { kind: "loss", from: "node-2", to: "node-3", protocol: "udp", percent: 30 },
    s: "node-2",
    d: "node-3",
    protocol: "udp",
    red: (t) => rank[t] >= rank.degraded,
    page: "udp",
  },
];

await lab.start();
const browser = await launchChromium();
try {
  const cookie = await labConsoleCookie(lab);
  const page = await labMatrixPage(lab, browser, "tcp");
  const ctx = page.context();
  console.log(`detection: healthy warm-up ${warmupS} s (P=${P} s, S=${S} s)`);
  await new Promise((r) => setTimeout(r, warmupS * 1000));
  const rows: (string | number)[][] = [];
  const results = new Map<string, { api: number[]; page: number[]; apiHeal: number[]; pageHeal: number[] }>();
  for (let round = 1; round <= rounds; round++) {
    for (const c of cases) {
      await page.goto(`${lab.consoleUrl}/matrix?protocol=${c.page}`);
      const healthy = (t: FleetTier) => t === "healthy";
      if (
        (await until(() => pairTier(lab, cookie, c.s, c.d, c.protocol), healthy)) === Number.POSITIVE_INFINITY
      )
        throw new Error(`${c.name}: not healthy before the fault`);
      // a random phase against the probe and scrape cycles
      await new Promise((r) => setTimeout(r, Math.random() * S * 1000));
      await lab.fault(c.fault);
      const [api, painted] = await Promise.all([
        until(() => pairTier(lab, cookie, c.s, c.d, c.protocol), c.red),
        until(() => cellTier(page, c.s, c.d), c.red),
      ]);
      await lab.heal();
      const out = c.out;
      const [apiHeal, pageHeal] = out
        ? await Promise.all([
            until(() => pairTier(lab, cookie, c.s, c.d, c.protocol), out),
            until(() => cellTier(page, c.s, c.d), out),
          ])
        : [Number.NaN, Number.NaN];
      const r = results.get(c.name) ?? { api: [], page: [], apiHeal: [], pageHeal: [] };
      r.api.push(api);
      r.page.push(painted);
      r.apiHeal.push(apiHeal);
      r.pageHeal.push(pageHeal);
      results.set(c.name, r);
      console.log(
        `round ${round} ${c.name}: API ${(api / 1000).toFixed(1)} s, page ${(painted / 1000).toFixed(1)} s; ` +
          `heal API ${(apiHeal / 1000).toFixed(1)} s, page ${(pageHeal / 1000).toFixed(1)} s`,
      );
      // back to healthy before the next case (the 5-minute window must forget the fault)
      await until(() => pairTier(lab, cookie, c.s, c.d, c.protocol), healthy);
    }
  }
  const s = (xs: number[]) =>
    xs.some(Number.isNaN)
      ? "not measured"
      : `${(median(xs) / 1000).toFixed(1)} (${(Math.min(...xs) / 1000).toFixed(1)}-${(Math.max(...xs) / 1000).toFixed(1)})`;
  for (const [name, r] of results) rows.push([name, s(r.api), s(r.page), s(r.apiHeal), s(r.pageHeal)]);
  const body = table(
    [
      "fault",
      "fault -> red, API s median (min-max)",
      "fault -> red, Matrix page s",
      "heal -> out, API s",
      "heal -> out, Matrix page s",
    ],
    rows,
  );
  record(
    "detection",
    `\`npm run bench -- detection --warmup ${warmupS} --rounds ${rounds} --probe ${P} --scrape ${S}\`: a lab of 3 agents in ` +
      `network namespaces, probe interval P = ${P} s (tcp timeout 1 s), Prometheus scrape S = ${S} s with the console's ` +
      `recording rules (now group every ${S} s), healthy for ${warmupS} s; ${rounds} rounds. Red: failing for the ` +
      `outage, degraded or worse for the loss; out: out of failing (tcp), healthy (udp). API: GET ` +
      `/api/v1/fleet/pairs/{s}/{d} polled every ${POLL_MS} ms; page: the cell's tier in the Matrix page left open ` +
      `(pushed on the matrix topic), polled every ${POLL_MS} ms. Goal: P + S + 2 = ${P + S + 2} s.\n\n${body}`,
  );
  await ctx.close();
} finally {
  await browser.close();
  await lab.stop();
}
