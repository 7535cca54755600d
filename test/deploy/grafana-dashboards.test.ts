/**
 * The Grafana dashboards (deploy/grafana/dashboards.ts): the committed JSON is what the code generates, and every
 * panel's PromQL (and every variable's label query) runs against the lab's real Prometheus and returns series. The
 * lab (@svc/lab, network namespaces, so root) runs 3 real agents, its controller and its console; its Prometheus
 * scrapes all of them every second. Once every pair has been probed, faults are injected so the failure, loss, path
 * MTU and MTR panels have something to show: tcp dropped node-1 -> node-2 (its failures trigger the reactive MTR
 * trace node-1 -> node-2), udp loss node-2 -> node-1, and node-3's eth0 MTU lowered to 1400 (a PMTU black hole
 * towards it). The dashboards' variables are set to the lab pair node-1 -> node-2. Every fault's effect is awaited
 * through the dashboards' own panels (the stat panels count it, the MTR panel shows the trace), never a fixed sleep.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { Lab, promQuery } from "@svc/lab";
import { dashboardJson, dashboards } from "../../deploy/grafana/dashboards.ts";
import { eventually, needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";

const ROOT = join(import.meta.dirname, "../..");
const PROM = "/usr/bin/prometheus";
const SOURCE = "node-1";
const DESTINATION = "node-2";

/** The dashboard's variables as a user picks them: the lab pair node-1 -> node-2 (tcp dropped, traced by MTR). */
const VARIABLES: Record<string, string> = {
  __rate_interval: "1m",
  __interval: "15s",
  datasource: "prometheus",
  source: SOURCE,
  destination: DESTINATION,
};

function substitute(expr: string): string {
  return expr.replace(/\$(\w+)/g, (m, name: string) => VARIABLES[name] ?? m);
}

interface PanelQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

function panelQueries(d: Dashboard): PanelQuery[] {
  return (d.panels ?? []).flatMap((p) => {
    if (!("targets" in p)) return [];
    const targets = (p.targets ?? []) as { expr?: string }[];
    assert.ok(targets.length > 0, `${d.title} / ${p.title}: a panel with no query`);
    return targets.map((t) => {
      assert.ok(t.expr, `${d.title} / ${p.title}: a target without PromQL`);
      return { dashboard: d.title ?? "", panel: p.title ?? "", expr: t.expr };
    });
  });
}

/** The (variable-substituted) queries of the panel titled `title`, over every dashboard. */
function panel(title: string): string[] {
  const found = dashboards()
    .flatMap(({ dashboard }) => panelQueries(dashboard))
    .filter((pq) => pq.panel === title)
    .map((pq) => substitute(pq.expr));
  assert.ok(found.length > 0, `no panel "${title}"`);
  return found;
}

test("deploy/grafana/*.json is what deploy/grafana/dashboards.ts generates (npm run gen:dashboards)", () => {
  for (const { file, dashboard } of dashboards()) {
    const committed = readFileSync(join(ROOT, "deploy/grafana", file), "utf8");
    assert.ok(
      committed === dashboardJson(dashboard),
      `${file} drifted: run npm run gen:dashboards and commit it`,
    );
    assert.ok(dashboard.uid && dashboard.title, file);
  }
});

describe(
  "every dashboard query returns series from the lab's Prometheus (3 agents, faults injected)",
  skipUnless(needsRoot(), needsBinary(PROM)),
  () => {
    let lab: Lab;
    const query = (expr: string) => promQuery(lab.prometheusUrl ?? "", expr);
    /** The value of a one-series query, or undefined while it has none. */
    const value = async (expr: string) => {
      const r = await query(expr);
      return r.length === 1 ? r[0]!.value : undefined;
    };

    before(
      async () => {
        lab = new Lab({
          removeDirOnStop: true,
          agents: 3,
          netns: true,
          prometheus: PROM,
          scrapeIntervalSeconds: 1,
          config: {
            checkers: {
              tcp: { interval: "1s", timeout: "500ms" },
              udp: { interval: "1s" },
              icmp: { interval: "1s" },
              // 28 x timeout fits in the interval (config rules); the first run comes within seconds of a peer
              pmtu: { interval: "5s", timeout: "150ms" },
              // one hop on the lab bridge: a trace of 10 rounds takes about 10 s; a short cooldown, so a trace
              // triggered while the lab came up does not hold back the one the tcp drop triggers
              mtr: { maxHops: 4, cooldown: "5s" },
            },
          },
        });
        await lab.start();
        const pairs = lab.nodes.length * (lab.nodes.length - 1);
        // every pair probed while healthy (its tcp latency histogram and its path MTU exist) before the faults:
        // the pair panels show a pair that worked and then broke
        await eventually(
          "every pair has tcp connect times and a path MTU",
          async () => {
            const tcp = await value("count(svc_tcp_connect_duration_seconds_count > 0)");
            const pmtu = await value("count(svc_pmtu_bytes)");
            return tcp === pairs && pmtu === pairs ? true : undefined;
          },
          60_000,
        );
        await lab.fault({ kind: "drop", from: SOURCE, to: DESTINATION, protocol: "tcp" });
        await lab.fault({ kind: "loss", from: "node-2", to: "node-1", protocol: "udp", percent: 60 });
        await lab.fault({ kind: "mtu", node: "node-3", bytes: 1400 });
        // each fault's effect, read through the panels that show it
        const counted = async (title: string, what: string) => {
          const [expr] = panel(title);
          await eventually(what, async () => ((await value(expr!)) ?? 0) >= 1 || undefined, 60_000);
        };
        await counted("Pairs failing tcp (last 5 min)", "the tcp drop node-1 -> node-2 counted");
        await counted("Pairs losing udp packets", "the udp loss node-2 -> node-1 counted");
        await counted(
          "Path MTU below the probe size",
          "the MTU 1400 of node-3 seen as a PMTU below the probe size",
        );
        // the tcp failures trigger a reactive trace node-1 -> node-2: 10 rounds, then its hop series
        const [mtr] = panel("MTR hop latency");
        await eventually(
          "an MTR trace node-1 -> node-2",
          async () => ((await query(mtr!)).length > 0 ? true : undefined),
          60_000,
        );
        // rates need two samples of every family in the window
        await eventually(
          "two scrapes of controller and console",
          async () => {
            for (const e of [
              "rate(svc_controller_peer_updates_total[1m])",
              "rate(svc_console_external_specs_skipped_total[1m])",
            ]) {
              if ((await query(e)).length === 0) return undefined;
            }
            return true;
          },
          30_000,
        );
      },
      { timeout: 240_000 },
    );

    after(async () => {
      await lab?.stop();
    });

    for (const { file, dashboard } of dashboards()) {
      test(`${file}: every panel query`, async () => {
        const failures: string[] = [];
        for (const pq of panelQueries(dashboard)) {
          const expr = substitute(pq.expr);
          try {
            if ((await query(expr)).length === 0) failures.push(`${pq.panel}: no series from ${expr}`);
          } catch (e) {
            failures.push(`${pq.panel}: ${(e as Error).message}`);
          }
        }
        assert.deepEqual(failures, []);
      });

      test(`${file}: every variable's label query`, async () => {
        for (const v of dashboard.templating?.list ?? []) {
          if (v.type !== "query") continue;
          const m = /^label_values\((\w+), (\w+)\)$/.exec(String(v.query));
          assert.ok(m, `${v.name}: a label_values(metric, label) query`);
          const res = await fetch(`${lab.prometheusUrl}/api/v1/label/${m[2]}/values?match[]=${m[1]}`);
          const body = (await res.json()) as { status: string; data: string[] };
          assert.equal(body.status, "success", v.name);
          // the lab's nodes, so the pair the test picks is one a user can pick
          assert.deepEqual(
            [...body.data].sort(),
            lab.nodes.map((n) => n.name).sort(),
            `${v.name}: the lab's nodes`,
          );
        }
      });
    }
  },
);
