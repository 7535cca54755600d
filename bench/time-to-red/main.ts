// npm run bench -- time-to-red [--sizes 200,500,5000s] [--modes counters,state] [--backends prometheus,victoria-metrics]
//   [--rounds 3]: how long a pair's
// outage takes to turn its cell red in the console's matrix API, and its heal to leave red, at fleet size (issue 35).
// Per size (a trailing "s": sparse plan, ring degree 2 and 2 zone chords) and mode: a real controller with N
// registrations, the synthetic fleet's exporter (bench/matrix-render/synthetic-fleet.ts) scraped by the real
// prometheus every S = 10 s (or, backend victoria-metrics: vmagent scraping into victoria-metrics, vmalert evaluating
// the rules, as `svc lab --metrics victoria-metrics` runs them), and a console (in-process, as `svc console` runs it)
// reading it.
//   counters: agents as before issue 35 (result counters only); Prometheus evaluates the full rule set, `now` group
//             every S (the latest results of every pair).
//   state:    agents export svc_agent_info and svc_peer_problem_ratio; the rules leave out the `now` group.
// Each round: a new pair goes down from the next scrape; the matrix API (grid layout) is polled every 250 ms until
// its cell is failing (fault -> red), then it heals and is polled until it is not (heal -> out of red). Also the
// rule groups' evaluation time and one fleet-wide refresh (recorded reads). Goal: red and out of red within
// S + 2 s median (the synthetic pair changes at the next scrape: no probe interval), max 2S + 2 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, promQuery, startPrometheus, startVictoriaMetrics, stopProcess } from "@svc/lab";
import { type FleetMatrixGrid, gridTier } from "@svc/matrix-grid";
import type { TopologySnapshot } from "@svc/protocol";
import { recordingRulesYaml } from "../../apps/console/src/fleet/recording-rules.ts";
import { startExporter } from "../../apps/console/src/fleet/testdata/exposition.ts";
import { startWebConsole } from "../../test/e2e/web-harness.ts";
import { median, record, table } from "../lib/report.ts";
import { fleetController, fleetExposition, nodeName } from "../matrix-render/synthetic-fleet.ts";
import { controllerPairStates, pushFleet } from "./push-fleet.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "200,500,5000s" },
    modes: { type: "string", default: "counters,state" },
    rounds: { type: "string", default: "3" },
    backends: { type: "string", default: "prometheus,victoria-metrics" },
  },
});
const S = 10;
const ROUNDS = Number(values.rounds);
const LIMIT_MS = 600_000;
/** push mode: how long to wait for the window group before measuring without it */
const WINDOW_WAIT_PUSH_MS = 180_000;
const sizes = (values.sizes ?? "")
  .split(",")
  .map((x) => ({ n: Number.parseInt(x, 10), sparse: x.endsWith("s") }));
type Mode = "counters" | "state" | "push";
const modes = (values.modes ?? "").split(",") as Mode[];
for (const m of modes) if (!["counters", "state", "push"].includes(m)) throw new Error(`unknown mode ${m}`);
type Backend = "prometheus" | "victoria-metrics";
const backends = (values.backends ?? "").split(",") as Backend[];
for (const b of backends)
  if (b !== "prometheus" && b !== "victoria-metrics") throw new Error(`unknown backend ${b}`);

interface Row {
  size: string;
  backend: Backend;
  mode: string;
  series: number;
  evalNow: number;
  evalWindow: number;
  reds: number[];
  heals: number[];
  /** whether the rules' window group had evaluated when the rounds began */
  windowEvaluated: boolean;
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The rule groups' last evaluation time (vmalert gives it per rule only: the group's is their sum). */
async function evalSeconds(url: string): Promise<{ now: number; window: number }> {
  const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as {
    data: {
      groups: { name: string; evaluationTime?: number; rules?: { evaluationTime?: number }[] | null }[];
    };
  };
  const g = (suffix: string) => {
    const group = body.data.groups.find((x) => x.name.endsWith(suffix));
    return group?.evaluationTime ?? (group?.rules ?? []).reduce((a, r) => a + (r.evaluationTime ?? 0), 0);
  };
  return { now: g("-now"), window: g("-window") };
}

async function measure(n: number, sparse: boolean, mode: Mode, backend: Backend): Promise<Row> {
  const controller = await fleetController(n, sparse);
  let planned: ((s: number, d: number) => boolean) | undefined;
  if (sparse) {
    const snap = (await (
      await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/topology`)
    ).json()) as TopologySnapshot;
    const plan = new Set(
      Object.entries(snap.probePlan ?? {}).flatMap(([s, ds]) => ds.map((d) => `${s} ${d}`)),
    );
    planned = (s, d) => plan.has(`${nodeName(s)} ${nodeName(d)}`);
  }
  const fleet = fleetExposition(n, { state: mode !== "counters", ...(planned ? { planned } : {}) });
  const exporter = await startExporter(fleet.render);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-red-"));
  const targets = [{ job: "agents", targets: [exporter.target] }];
  const rules = [{ name: "svc-rules.yml", yaml: recordingRulesYaml("svc", S, 15, mode === "counters") }];
  const metrics =
    backend === "prometheus"
      ? await startPrometheus({
          binary: "/usr/bin/prometheus",
          dir,
          port: await freePort(),
          targets,
          intervalSeconds: S,
          rules,
        }).then((p) => ({ url: p.url, evaluator: p.url, stop: () => stopProcess(p.process) }))
      : await startVictoriaMetrics({ dir, targets, intervalSeconds: S, rules, maxScrapeBytes: 2 ** 30 }).then(
          (v) => ({
            url: v.queryUrl,
            evaluator: v.evaluatorUrl,
            stop: v.stop,
          }),
        );
  const prom = { url: metrics.url };
  const yaml = `prometheus:\n  url: ${prom.url}\nalerts:\n  evaluatorUrl: ${metrics.evaluator}\ncontroller:\n  url: http://127.0.0.1:${controller.httpPort}\n`;
  let console_: Awaited<ReturnType<typeof startWebConsole>> | undefined;
  const pushing = mode === "push" ? pushFleet(n, controller, fleet.problems) : undefined;
  try {
    await until(
      `${n}: three scrapes stored`,
      async () =>
        exporter.scrapes() >= 3 &&
        (await promQuery(prom.url, "scrape_samples_scraped"))[0]?.value === fleet.series,
      LIMIT_MS,
    );
    // push: red does not read the rules, so a window group that has not kept up (vmalert over 1.25 M series on
    // this machine) does not stop the measurement: the console then reads the window figures raw
    const windowEvaluated = await until(
      `${n}: the window group evaluated`,
      async () => (await promQuery(prom.url, "count(svc:tcp_present_counts)"))[0]?.value === n,
      pushing ? WINDOW_WAIT_PUSH_MS : LIMIT_MS,
    ).then(
      () => true,
      (e: unknown) => {
        if (!pushing) throw e;
        console.log(`${n} ${backend} push: the window group has not evaluated; the console reads raw`);
        return false;
      },
    );
    if (pushing)
      await until(
        `${n}: every agent reports its pair state to the controller`,
        async () => (await controllerPairStates(controller)).sources.length === n,
        LIMIT_MS,
      );
    console_ = await startWebConsole(yaml);
    const url = `${console_.httpUrl}/api/v1/fleet/matrix?protocol=tcp&layout=grid`;
    const tier = async (s: number, d: number) => {
      const g = (await (await fetch(url)).json()) as FleetMatrixGrid;
      return gridTier(g, nodeName(s), nodeName(d));
    };
    await until(
      `${n}: the console's matrix has data`,
      async () => (await tier(0, 1)) === "healthy" || (sparse && (await tier(0, 1)) !== undefined),
      LIMIT_MS,
    );
    const evals = await evalSeconds(metrics.evaluator);
    const reds: number[] = [];
    const heals: number[] = [];
    const pairs = sparse
      ? [...Array(n).keys()]
          .flatMap((s) => [...Array(n).keys()].filter((d) => planned?.(s, d)).map((d) => [s, d] as const))
          .slice(0, ROUNDS)
      : Array.from({ length: ROUNDS }, (_, i) => [i * 3 + 1, i * 3 + 2] as const);
    for (const [s, d] of pairs) {
      const time = async (want: (t: string | undefined) => boolean) => {
        const t0 = performance.now();
        while (performance.now() - t0 < LIMIT_MS) {
          if (want(await tier(s, d))) return performance.now() - t0;
          await new Promise((r) => setTimeout(r, 250));
        }
        return Number.POSITIVE_INFINITY;
      };
      fleet.outage(s, d);
      pushing?.set(s, d, 1);
      reds.push(await time((t) => t === "failing"));
      fleet.heal(s, d);
      pushing?.set(s, d, undefined);
      heals.push(await time((t) => t !== "failing"));
      console.log(
        `${n}${sparse ? " sparse" : ""} ${backend} ${mode}: red ${(reds.at(-1) ?? 0) / 1000} s, out ${(heals.at(-1) ?? 0) / 1000} s`,
      );
    }
    return {
      size: `${n}${sparse ? " sparse" : " full mesh"}`,
      backend,
      mode,
      series: fleet.series,
      evalNow: evals.now,
      evalWindow: evals.window,
      reds,
      heals,
      windowEvaluated,
    };
  } finally {
    pushing?.stop();
    await console_?.stop();
    await metrics.stop();
    await exporter.close();
    await controller.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
/** Sizes that could not be measured (a wait that timed out), reported beside the table. */
const failures: string[] = [];
for (const { n, sparse } of sizes)
  for (const backend of backends)
    for (const mode of modes) {
      try {
        rows.push(await measure(n, sparse, mode, backend));
      } catch (e) {
        const what = `${n}${sparse ? " sparse" : " full mesh"} ${backend} ${mode}: ${e instanceof Error ? e.message : String(e)}`;
        console.log(`not measured: ${what}`);
        failures.push(what);
      }
    }
const s1 = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : "none");
record(
  "time-to-red: outage and heal in the matrix API at fleet size",
  `Command: \`npm run bench -- time-to-red --sizes ${values.sizes} --modes ${values.modes} --backends ${values.backends} --rounds ${ROUNDS}\`. Scrape every S = ${S} s; the synthetic pair changes at the next scrape (no probe interval), so the goal is S + 2 = ${S + 2} s median, 2S + 2 = ${2 * S + 2} s max. counters: agents without the pair state, rules with the \`now\` group; state: agents exporting svc_peer_problem_ratio, rules without it; push: as state, and every agent reports its pair state to the controller (svc.v1.PairStateService), which the console reads beside the metrics: the faulted pair's source reports the change when the fault starts (a real agent when its probe sees it, the P the goal allows).\n\n${table(
    [
      "fleet",
      "metrics",
      "mode",
      "series scraped",
      "rule eval s: now / window",
      "fault -> red s: median (max)",
      "heal -> out of red s: median (max)",
    ],
    rows.map((r) => [
      r.size,
      r.backend,
      r.mode,
      r.series,
      r.windowEvaluated
        ? `${r.evalNow.toFixed(2)} / ${r.evalWindow.toFixed(2)}`
        : "window group not evaluated: raw reads",
      `${s1(median(r.reds))} (${s1(Math.max(...r.reds))})`,
      `${s1(median(r.heals))} (${s1(Math.max(...r.heals))})`,
    ]),
  )}${failures.length > 0 ? `\n\nNot measured (a wait of ${LIMIT_MS / 1000} s timed out):\n\n${failures.map((f) => `- ${f}`).join("\n")}` : ""}`,
);
