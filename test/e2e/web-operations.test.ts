// Targets, Checks, Runs and Metrics pages in Chromium against a console on a real database and a real controller
// whose agents answer diagnostics over gRPC: create a target and a check in the UI, watch the check's live
// projection name the agents, see a schedule's round listed among the runs with its origin, start a duration run
// and watch it finish live on its page (run:{id} pushes), and see the Metrics page answer that no metrics server is
// configured.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Controller, testConfig, waitUntil } from "@svc/controller";
import type { Browser, Page } from "playwright-core";
import { TaskAgent } from "../../apps/console/src/runs/testdata/task-agent.ts";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { skipUnless } from "../helpers/env.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

describe("console web app: targets, checks, runs, metrics", skipUnless(browserMissing()), () => {
  let ctl: Controller;
  let dbs: TestDatabases;
  let server: ConsoleServer;
  let browser: Browser;
  const agents: TaskAgent[] = [];

  before(async () => {
    ensureWebBuilt();
    ctl = new Controller({
      config: testConfig({ agentTtl: 600_000 }),
      version: { version: "2.5.0", commit: "web-test" },
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
    });
    await ctl.start();
    for (const [i, node] of ["node-1", "node-2", "node-3"].entries())
      agents.push(await TaskAgent.start(ctl, node, `198.18.0.${61 + i}`, () => ({})));
    dbs = await testDatabases();
    const fresh = await dbs.fresh();
    server = await startWebConsole(
      `auth:\n  mode: anonymous\n  anonymous:\n    role: operator\ncontroller:\n  url: http://127.0.0.1:${ctl.httpPort}\n`,
      fresh.db,
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    for (const a of agents) a.close();
    await ctl?.stop();
    await dbs?.close();
  });

  async function open(path: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.httpUrl}${path}`);
    return page;
  }

  test("create a target and a check with its projection, start a run and watch it finish", async () => {
    const page = await open("/targets");
    const addTarget = page.getByRole("form", { name: "Add target" });
    await addTarget.getByLabel("Name").fill("db");
    await addTarget.getByLabel(/^Address/).fill("198.18.9.9:5432");
    await addTarget.getByRole("button", { name: "Add target" }).click();
    await page.getByTestId("target-row").filter({ hasText: "198.18.9.9" }).waitFor();
    assert.match(
      (await page.getByTestId("target-row").textContent()) ?? "",
      /db\s*host\s*198\.18\.9\.9\s*5432/,
    );

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Checks" }).click();
    const editor = page.getByRole("form", { name: "New check" });
    await editor.getByLabel("Name").fill("pg");
    await waitUntil(
      async () => (await page.getByTestId("projection-agents").textContent()) === "node-1, node-2, node-3",
      "projection names every agent",
      15_000,
    );
    await editor.getByLabel(/^Source nodes/).fill("node-2");
    await waitUntil(
      async () => (await page.getByTestId("projection-agents").textContent()) === "node-2",
      "projection follows the draft",
      15_000,
    );
    await editor.getByLabel(/^Source zones/).fill("");
    await editor.getByLabel(/^Source nodes/).fill("nowhere");
    await page.getByTestId("projection-none").waitFor();
    await editor.getByLabel(/^Source nodes/).fill("node-2");
    await page.getByTestId("projection-agents").waitFor();
    await editor.getByRole("button", { name: "Save check" }).click();
    await page.getByTestId("check-row").filter({ hasText: "pg" }).waitFor();
    await screenshot(page, "operations-checks");
    await waitUntil(
      () => ctl.externalChecks.specsOf("id-node-2").length === 1,
      "the fan-out sent it to node-2",
    );
    assert.deepEqual(ctl.externalChecks.specsOf("id-node-1"), []);

    // disabling takes it off the agent; enabling is judged again and puts it back
    const pgRow = page.getByTestId("check-row").filter({ hasText: "pg" });
    await pgRow.getByRole("button", { name: "Disable" }).click();
    await waitUntil(() => ctl.externalChecks.specsOf("id-node-2").length === 0, "disabled: off node-2");
    await pgRow.getByRole("button", { name: "Enable" }).click();
    await waitUntil(() => ctl.externalChecks.specsOf("id-node-2").length === 1, "enabled: back on node-2");
    // Edit: the form starts from the stored definition; an edit no agent could run while enabled is refused (422,
    // nothing changes); moving it to node-3 moves the external check
    await pgRow.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: "Edit check pg" });
    assert.equal(await edit.getByLabel(/^Source nodes/).inputValue(), "node-2");
    await edit.getByLabel(/^Source nodes/).fill("nowhere");
    await edit.getByRole("button", { name: "Save check" }).click();
    await edit.getByRole("alert").filter({ hasText: /./ }).waitFor();
    assert.match((await pgRow.textContent()) ?? "", /node-2/);
    await edit.getByLabel(/^Source nodes/).fill("node-3");
    await edit.getByLabel(/^Interval/).fill("60");
    await edit.getByRole("button", { name: "Save check" }).click();
    await page.getByRole("form", { name: "New check" }).waitFor();
    await waitUntil(
      async () => /node-3\s*60 s/.test((await pgRow.textContent()) ?? ""),
      "the row shows the edit",
    );
    await waitUntil(() => ctl.externalChecks.specsOf("id-node-3").length === 1, "edited: on node-3");
    assert.deepEqual(ctl.externalChecks.specsOf("id-node-2"), []);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Schedules" }).click();
    const sched = page.getByRole("form", { name: "New schedule" });
    await sched.getByLabel("Name").fill("hourly pg");
    await sched.getByLabel(/^Every/).fill("3600");
    await sched.getByRole("button", { name: "Save schedule" }).click();
    const row = page.getByTestId("schedule-row").filter({ hasText: "hourly pg" });
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", /pg\s*check\s*3600 s\s*active/);

    // the target's page, and a named 404 for an unknown and a malformed id alike. This console has no metrics
    // server: the metrics-query routes answer from a fixture here, an hour of medians rising 10 -> 30 ms
    const end = Math.floor(Date.now() / 1000);
    const values = Array.from({ length: 120 }, (_, i) => [
      end - 3600 + i * 30,
      String(0.01 + (i / 119) * 0.02),
    ]);
    await page.route("**/api/v1/metrics/query_range", (r) =>
      r.fulfill({ json: { resultType: "matrix", result: [{ metric: {}, values }] } }),
    );
    await page.route("**/api/v1/metrics/query", (r) =>
      r.fulfill({ json: { resultType: "vector", result: [{ metric: {}, value: [end, "0.98"] }] } }),
    );
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Targets" }).click();
    await page.getByRole("link", { name: "db" }).click();
    await page.getByRole("heading", { name: "Target db" }).waitFor();
    await page.getByText("pg (tcp, every 60 s)").waitFor();
    // the duration chart: a time axis and a millisecond axis (uPlot draws their ticks), and its figures as text
    const chart = page.getByRole("figure", { name: "Median check duration (ms)" });
    await chart.locator("canvas").waitFor();
    assert.equal(await chart.locator(".u-axis").count(), 2, "an x and a y axis");
    assert.equal(
      await page.getByTestId("target-duration-figures").innerText(),
      "Latest 30.0 ms · lowest 10.0 ms · highest 30.0 ms",
    );
    assert.equal(await page.getByTestId("target-health").innerText(), "98.0 % of checks succeeded");
    await screenshot(page, "operations-target");
    await page.unroute("**/api/v1/metrics/query_range");
    await page.unroute("**/api/v1/metrics/query");
    for (const id of ["00000000-0000-0000-0000-000000000000", "%20not%20an%20id"]) {
      await page.goto(`${server.httpUrl}/targets/${id}`);
      await page.getByRole("heading", { name: "No such target" }).waitFor();
    }

    await page.goto(`${server.httpUrl}/runs`);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    // the schedule's first round (due at once) is listed as a run with its origin; the list refreshes every 10 s
    const scheduled = page.getByTestId("run-row").filter({ hasText: "schedule hourly pg → db" });
    await scheduled.first().waitFor({ timeout: 30_000 });
    assert.match(
      (await scheduled.first().textContent()) ?? "",
      /tcp\s*1\s*completed\s*schedule hourly pg → db/,
    );
    await screenshot(page, "operations-runs-origin");
    const form = page.getByRole("form", { name: "Start run" });
    await form.getByLabel(/^Sources/).fill("node-1, node-2");
    await form.getByLabel(/^Destinations/).fill("node-3");
    await form.getByLabel(/^Duration/).fill("10");
    await form.getByRole("button", { name: "Start run" }).click();
    await page.getByTestId("run-status").waitFor();
    assert.equal(await page.getByTestId("run-pair").count(), 2);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await waitUntil(
      async () => (await page.getByTestId("run-status").textContent()) === "completed",
      "the run ends completed on its page",
      20_000,
    );
    assert.ok(
      !requests.some((p) => p.startsWith("/api/v1/runs/")),
      "the page followed the run:{id} pushes, not polling",
    );
    const pairs = await page.getByTestId("run-pair").allTextContents();
    assert.deepEqual(
      pairs.map((t) => /completed2 \/ 22/.test(t)),
      [true, true],
      pairs.join(" | "),
    );
    await screenshot(page, "operations-run");

    // the Pair page finds the run among the 20 most recent and starts an MTR run of exactly that pair
    await page.goto(`${server.httpUrl}/pairs/node-1/node-3`);
    await page.getByText("Scanned the 20 most recent runs.").waitFor();
    await page.getByTestId("pair-runs").getByText(/^TCP /).waitFor();
    await page.getByRole("button", { name: "Run MTR now" }).click();
    await page.getByText("MTR run started").waitFor();
    await page.getByTestId("pair-runs").getByText(/^MTR /).waitFor();
    const mtrTask = agents[0]?.tasks.find((t) => t.type === "mtr");
    await waitUntil(
      () => agents[0]?.tasks.some((t) => t.type === "mtr") === true,
      "the mtr task reached node-1",
    );
    assert.ok(mtrTask === undefined || mtrTask.destination === "node-3");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Metrics" }).click();
    await page.getByLabel("PromQL").fill("up");
    await page.getByRole("button", { name: "Run query" }).click();
    await waitUntil(
      async () =>
        /metrics server not configured/.test((await page.getByRole("alert").last().textContent()) ?? ""),
      "the Metrics page says why",
      15_000,
    );
  });
});
