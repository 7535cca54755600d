// Console operations against a real `svc lab` (3 agents in network namespaces, the real controller, Prometheus
// scraping every second, the console on PGlite), through the API as the lab's admin: an http check definition on a
// target becomes an external check on the chosen agents and its series appear in Prometheus; a definition no agent
// can run is 422; a duration run over 3 pairs takes its planned samples and ends completed; over the 8 MiB budget
// of the controller's external-checks body the newest definitions are left out (counted), and go out once there is
// room.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CheckDefinition, QueryResult, Run, Target } from "@svc/contract";
import { Lab } from "@svc/lab";
import { CookieClient } from "../../apps/console/src/testing/harness.ts";
import { eventually, needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";

const PROMETHEUS = "/usr/bin/prometheus";

describe("console operations against svc lab", skipUnless(needsRoot(), needsBinary(PROMETHEUS)), () => {
  let lab: Lab;
  let admin: CookieClient;
  const call = async <T>(method: string, path: string, body?: unknown) => {
    const r = await admin.request(method, path, { body, csrf: true });
    return { status: r.status, body: r.body as T };
  };

  before(async () => {
    lab = new Lab({
      removeDirOnStop: true,
      agents: 3,
      prometheus: PROMETHEUS,
      scrapeIntervalSeconds: 1,
      config: {
        checkers: {
          http: { enabled: true },
          external: { enabled: true, allowedCidrs: ["198.18.0.0/15"] },
        },
      },
    });
    await lab.start();
    assert.ok(lab.consoleUrl && lab.consoleAdmin, "the lab started its console");
    admin = new CookieClient(lab.consoleUrl, "__Host-svc_csrf");
    const r = await admin.request("POST", "/api/v1/auth/login", { body: lab.consoleAdmin });
    assert.equal(r.status, 200);
  });
  after(async () => {
    await lab?.stop();
  });

  test("an http check reaches the chosen agents and Prometheus; 422 when nobody can run it", async () => {
    const n3 = lab.nodes[2];
    assert.ok(n3);
    const t = await call<Target>("POST", "/api/v1/targets", {
      name: "node-3-health",
      address: `http://${n3.address}:${n3.httpPort}/healthz`,
    });
    assert.equal(t.status, 201, JSON.stringify(t.body));
    const c = await call<CheckDefinition>("POST", "/api/v1/checks", {
      name: "node-3 health",
      targetId: t.body.id,
      type: "http",
      sources: { nodes: ["node-1", "node-2"], zones: [] },
      intervalSeconds: 2,
      timeoutSeconds: 1,
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const series = await eventually(
      "external http results of node-1 and node-2 in Prometheus",
      async () => {
        const q = await call<QueryResult>("POST", "/api/v1/metrics/query", {
          query: 'sum by (source_node) (svc_external_results_total{target="node-3-health",result="success"})',
        });
        const rows = (q.body.result ?? []) as { metric: { source_node: string } }[];
        return rows.length === 2 ? rows.map((r) => r.metric.source_node).sort() : undefined;
      },
      90_000,
    );
    assert.deepEqual(series, ["node-1", "node-2"]);
    const none = await call("POST", "/api/v1/checks", {
      name: "nobody",
      targetId: t.body.id,
      type: "http",
      sources: { nodes: ["node-9"], zones: [] },
    });
    assert.equal(none.status, 422);
  });

  test("a duration run over 3 pairs takes its planned samples and ends completed", async () => {
    const r = await call<Run>("POST", "/api/v1/runs", {
      type: "tcp",
      pairs: [
        { source: "node-1", destination: "node-2" },
        { source: "node-2", destination: "node-3" },
        { source: "node-3", destination: "node-1" },
      ],
      durationSeconds: 10,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.plannedSampleIntervalNs, 5e9);
    assert.equal(r.body.plannedSamplesPerPair, 2);
    const done = await eventually(
      "the run ends",
      async () => {
        const g = await call<Run>("GET", `/api/v1/runs/${r.body.id}`);
        return g.body.status === "running" ? undefined : g.body;
      },
      60_000,
    );
    assert.equal(done.status, "completed");
    assert.deepEqual(
      done.pairs.map((p) => [p.state, p.samples, p.successes]),
      [
        ["completed", 2, 2],
        ["completed", 2, 2],
        ["completed", 2, 2],
      ],
    );
    assert.ok(done.pairs.every((p) => (p.lastResult as { success?: boolean } | null)?.success === true));
  });

  test("over the 8 MiB external-checks budget the newest definitions are left out and counted", async () => {
    const n3 = lab.nodes[2];
    assert.ok(n3 && lab.consoleUrl);
    const consoleUrl = lab.consoleUrl;
    const skipped = async () => {
      const text = await (await fetch(`${consoleUrl}/metrics`)).text();
      const m = /svc_console_external_specs_skipped_total\{reason="over-budget"\} (\d+)/.exec(text);
      return Number(m?.[1] ?? 0);
    };
    const before = await skipped();
    // each spec about 6.2 KB (a 2,000-byte address, 4,000 bytes of params) on 3 agents: about 450 definitions fit
    const base = `http://${n3.address}:${n3.httpPort}/`;
    const target = async (name: string) => {
      const t = await call<Target>("POST", "/api/v1/targets", {
        name,
        address: base + "p".repeat(2000 - base.length),
      });
      assert.equal(t.status, 201, JSON.stringify(t.body));
      return t.body.id;
    };
    const bulk = await target("bulk");
    const newest = await target("newest");
    const define = async (name: string, targetId: string, intervalSeconds: number) => {
      const c = await call<CheckDefinition>("POST", "/api/v1/checks", {
        name,
        targetId,
        type: "http",
        params: { pad: "x".repeat(4000) },
        intervalSeconds,
        timeoutSeconds: 1,
      });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      return c.body.id;
    };
    const ids: string[] = [];
    for (let i = 0; i < 460; i += 10) {
      ids.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, k) => define(`bulk ${i + k}`, bulk, 60)))),
      );
    }
    await define("newest", newest, 2);
    await eventually(
      "the fan-out counts what it left out",
      async () => ((await skipped()) > before ? true : undefined),
      60_000,
    );
    const series = async (name: string) => {
      const q = await call<QueryResult>("POST", "/api/v1/metrics/query", {
        query: `count by (source_node) (svc_external_results_total{target="${name}"})`,
      });
      return ((q.body.result ?? []) as unknown[]).length;
    };
    // the oldest definitions run on every agent; the newest (every 2 s) never reaches one
    await eventually(
      "bulk checks reach all three agents",
      async () => ((await series("bulk")) === 3 ? true : undefined),
      120_000,
    );
    await new Promise((r) => setTimeout(r, 10_000));
    assert.equal(await series("newest"), 0, "the newest definition was left out");
    // deleting older definitions makes room: the newest goes out and runs
    for (const id of ids.slice(0, 30))
      assert.equal((await call("DELETE", `/api/v1/checks/${id}`)).status, 204);
    await eventually(
      "the newest definition runs once there is room",
      async () => ((await series("newest")) === 3 ? true : undefined),
      90_000,
    );
    for (const id of ids.slice(30)) await call("DELETE", `/api/v1/checks/${id}`);
  });
});
