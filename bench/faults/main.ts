/**
 * faults: how often svc is right, on injected faults (issue 34). A lab of `--agents` agents in `--zones` zones
 * (network namespaces; probes every P = 2 s, pmtu every 5 s; Prometheus scraping every S = 5 s with the console's
 * recording rules; the console polling alerts every 5 s with one alert rule over every pair and a webhook to a
 * receiver here) runs healthy for `--warmup` s, then a seeded sequence of faults: every type of the catalogue
 * (bench/faults/catalogue.ts) `--per-type` times on random elements, each held until the localization names it
 * (and `--steady` s more) or `--hold` s, healed, then a healthy gap of `--gap` s.
 *
 *   npm run bench -- faults [--seed 34] [--agents 12] [--zones 3] [--per-type 3] [--warmup 90] [--hold 60]
 *                           [--steady 5] [--gap 15] [--types isolate-in,mtu,...]
 *
 * Prints per fault and per type, and appends the tables to docs/benchmarks.md. Needs root and prometheus.
 */
import { parseArgs } from "node:util";
import { Lab } from "@svc/lab";
import { labConsoleCookie } from "../../test/helpers/lab-tiers.ts";
import { record } from "../lib/report.ts";
import { FAULT_TYPES, type FaultType, sequence } from "./catalogue.ts";
import { faultTables } from "./report.ts";
import { ConsoleReader, type FaultRecord, type GapRecord, runFault } from "./run.ts";
import { labOptions, P, PMTU_P, prng, S, startAlerting } from "./setup.ts";

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "34" },
    agents: { type: "string", default: "12" },
    zones: { type: "string", default: "3" },
    "per-type": { type: "string", default: "3" },
    warmup: { type: "string", default: "90" },
    hold: { type: "string", default: "60" },
    steady: { type: "string", default: "5" },
    gap: { type: "string", default: "15" },
    types: { type: "string" },
  },
});
const seed = Number(values.seed);
const agents = Number(values.agents);
const zones = Number(values.zones);
const perType = Number(values["per-type"]);
const types = (values.types?.split(",") ?? [...FAULT_TYPES]) as FaultType[];
for (const t of types)
  if (!FAULT_TYPES.includes(t)) throw new Error(`unknown type ${t}: ${FAULT_TYPES.join(", ")}`);
if (process.getuid?.() !== 0) throw new Error("faults needs root (network namespaces and nftables)");
const lab = new Lab(labOptions(agents, zones));
const stopAll = async () => {
  await lab.stop();
  process.exit(130);
};
process.once("SIGINT", stopAll);
process.once("SIGTERM", stopAll);

try {
  const started = Date.now();
  console.log(`faults: starting a lab of ${agents} agents in ${zones} zones`);
  await lab.start();
  const cookie = await labConsoleCookie(lab);
  const hooks = await startAlerting(lab, cookie);
  console.log(`faults: healthy warm-up ${values.warmup} s`);
  await new Promise((r) => setTimeout(r, Number(values.warmup) * 1000));
  const reader = new ConsoleReader(lab, cookie);
  const shape = { nodes: lab.nodes.map((n) => ({ name: n.name, zone: n.zone })) };
  const faults = sequence(shape, types, perType, prng(seed));
  const timing = {
    holdMaxMs: Number(values.hold) * 1000,
    steadyMs: Number(values.steady) * 1000,
    greenMaxMs: 60_000,
    gapMs: Number(values.gap) * 1000,
  };
  const recs: FaultRecord[] = [];
  const gaps: GapRecord[] = [];
  for (const [i, f] of faults.entries()) {
    const r = await runFault(lab, reader, f, i + 1, timing, hooks.log, (l) => console.log(l));
    recs.push(r.fault);
    gaps.push(r.gap);
  }
  await hooks.close();
  const minutes = ((Date.now() - started) / 60_000).toFixed(0);
  record(
    `faults: localization on injected faults (seed ${seed})`,
    `Command: \`npm run bench -- faults ${process.argv.slice(2).join(" ")}\` ` +
      `(${faults.length} faults, ${minutes} min). Lab: ${agents} agents in ${zones} zones, probes every P = ${P} s ` +
      `(pmtu every ${PMTU_P} s), scrapes every S = ${S} s, console alert poll 5 s.\n\n${faultTables(recs, gaps, { P, S, PMTU_P })}`,
  );
} finally {
  await lab.stop();
}
