/**
 * The Grafana dashboards (deploy/grafana/dashboards.ts): the committed JSON is what the code generates, and every
 * panel's PromQL (and every variable's label query) runs against a real Prometheus and returns series. Prometheus
 * scrapes the console's fleet fixture exporter (agent series with known values: failing, lossy, slow and black-hole
 * pairs over two zones), a real controller process and a real console process, every second.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { freePorts, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import { stringify } from "yaml";
import { type Exporter, startExporter } from "../../apps/console/src/fleet/testdata/exposition.ts";
import { fixtureMetrics } from "../../apps/console/src/fleet/testdata/fleet-fixture.ts";
import { dashboardJson, dashboards } from "../../deploy/grafana/dashboards.ts";
import { eventually, needsBinary, skipUnless } from "../helpers/env.ts";
import { ControllerProc, SvcProcess } from "../helpers/svc-process.ts";

const ROOT = join(import.meta.dirname, "../..");
const PROM = "/usr/bin/prometheus";

/** The dashboard's variables as a user picks them: the pair a -> b of the fixture (tcp fails, two mtr hops). */
const VARIABLES: Record<string, string> = {
  __rate_interval: "1m",
  __interval: "15s",
  datasource: "prometheus",
  source: "a",
  destination: "b",
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

describe("every dashboard query returns series from a real Prometheus", skipUnless(needsBinary(PROM)), () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-dashboards-"));
  let exporter: Exporter;
  let controller: ControllerProc;
  let consoleProc: SvcProcess;
  let prometheus: ManagedProcess | undefined;
  let promUrl = "";

  before(
    async () => {
      exporter = await startExporter(fixtureMetrics);
      controller = await ControllerProc.start(join(dir, "controller"));
      const [http, metrics, promPort] = await freePorts(3);
      const file = join(dir, "console.yaml");
      writeFileSync(
        file,
        stringify({
          httpPort: http,
          metricsPort: metrics,
          logLevel: "warn",
          console: { controller: { url: controller.url } },
        }),
      );
      consoleProc = new SvcProcess("console", ["console", "--config", file], {}, join(dir, "console"));
      consoleProc.spawn();
      await consoleProc.waitOk(`http://127.0.0.1:${metrics}/readyz`);
      const started = await startPrometheus({
        binary: PROM,
        dir,
        port: promPort ?? 0,
        intervalSeconds: 1,
        targets: [
          { job: "svc-agent", targets: [exporter.target] },
          { job: "svc-controller", targets: [`127.0.0.1:${controller.metricsPort}`] },
          { job: "svc-console", targets: [`127.0.0.1:${metrics}`] },
        ],
      });
      prometheus = started.process;
      promUrl = started.url;
      // rates need two samples of every family in the window
      await eventually(
        "two scrapes of every target",
        async () => {
          for (const e of [
            "rate(svc_controller_peer_updates_total[1m])",
            "rate(svc_console_external_specs_skipped_total[1m])",
            "rate(svc_tcp_results_total[1m])",
          ]) {
            if ((await query(e)).length === 0) return undefined;
          }
          return true;
        },
        30_000,
      );
    },
    { timeout: 120_000 },
  );

  after(async () => {
    if (prometheus) await stopProcess(prometheus);
    await consoleProc?.stop();
    await controller?.stop();
    await exporter?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function query(expr: string): Promise<unknown[]> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
    if (body.status !== "success") throw new Error(`${expr}: ${body.error ?? res.status}`);
    return body.data?.result ?? [];
  }

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
        const res = await fetch(`${promUrl}/api/v1/label/${m[2]}/values?match[]=${m[1]}`);
        const body = (await res.json()) as { data: string[] };
        assert.ok(body.data.length > 0, `${v.name}: no values`);
      }
    });
  }
});
