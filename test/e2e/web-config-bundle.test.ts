// Settings -> Configuration in Chromium against a console on a real database: Export downloads the bundle under
// its filesystem-safe name; choosing a file shows the dry run's plan at once with per-item errors (only the newest
// file's plan when two are chosen while the first's dry run is in flight); Apply imports it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ALERT_RULE_EXAMPLE, type ConfigBundle } from "@svc/contract";
import type { Browser } from "playwright-core";
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

const actor = { subject: "local:seed", subjectDisplay: "seed", action: "seed", remoteAddr: "127.0.0.1" };

describe("console web app: configuration export and import", skipUnless(browserMissing()), () => {
  let dbs: TestDatabases;
  let server: ConsoleServer;
  let browser: Browser;
  let dir: string;

  before(async () => {
    ensureWebBuilt();
    dir = mkdtempSync(join(tmpdir(), "svc-bundle-web-"));
    dbs = await testDatabases();
    const fresh = await dbs.fresh();
    server = await startWebConsole("auth:\n  mode: anonymous\n  anonymous:\n    role: admin\n", fresh.db);
    const catalog = server.operations?.catalog;
    assert.ok(catalog && server.alertRules);
    await catalog.createTarget({ name: "web", address: "https://example.com/" }, actor);
    await server.alertRules.create(
      { ...ALERT_RULE_EXAMPLE, name: "UDP loss", description: "", enabled: true },
      actor,
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dbs?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("export, choose two files (the newest plan wins), see per-item errors, apply", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.httpUrl}/settings?tab=configuration`);
    await page.getByRole("heading", { name: "Export" }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export configuration" }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^svc-config-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.json$/);
    const saved = join(dir, "exported.json");
    await download.saveAs(saved);
    const bundle = JSON.parse(readFileSync(saved, "utf8")) as ConfigBundle;
    assert.deepEqual(
      bundle.targets?.map((t) => [t.name, t.address]),
      [["web", "https://example.com/"]],
    );
    await page.getByText("Every section exported.").waitFor();

    // first.json: its dry run is held until second.json's plan is on screen, and must never replace it
    const first = join(dir, "first.json");
    writeFileSync(
      first,
      JSON.stringify({ ...bundle, targets: [{ name: "first-only", address: "a.example" }] }),
    );
    const second = join(dir, "second.json");
    writeFileSync(
      second,
      JSON.stringify({
        ...bundle,
        targets: [...(bundle.targets ?? []), { name: "api", address: "api.example:443" }],
        alertRules: [...(bundle.alertRules ?? []), { ...ALERT_RULE_EXAMPLE, name: "udp-loss" }],
      }),
    );
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let dryRuns = 0;
    await page.route("**/api/v1/import?dryRun=true", async (route) => {
      if (++dryRuns === 1) await held;
      await route.continue();
    });
    const input = page.locator("#bundle-file");
    await input.setInputFiles(first);
    await input.setInputFiles(second);
    await page.getByTestId("plan-title").filter({ hasText: "second.json" }).waitFor();
    release();
    await page.waitForTimeout(500);
    assert.match(
      (await page.getByTestId("plan-title").textContent()) ?? "",
      /second\.json \(1 item would fail\)/,
    );
    assert.equal(await page.getByText("first-only").count(), 0, "the older file's plan is never shown");
    const rules = page.locator('[data-section="alertRules"]');
    await rules.getByText("alert name collision").waitFor();
    assert.match((await rules.locator('[data-outcome="error"]').textContent()) ?? "", /udp-loss\s*error 422/);
    const targets = page.locator('[data-section="targets"]');
    assert.match((await targets.textContent()) ?? "", /1 create, 1 unchanged/);
    assert.match((await page.locator('[data-section="bindings"]').textContent()) ?? "", /never imported/);
    await screenshot(page, "config-bundle-plan");
    assert.equal((await server.operations?.catalog.listTargets())?.length, 1, "a dry run stores nothing");

    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("second.json applied.").waitFor();
    await page.getByTestId("applied").waitFor();
    await screenshot(page, "config-bundle-applied");
    assert.deepEqual(
      (await server.operations?.catalog.listTargets())?.map((t) => t.name),
      ["api", "web"],
    );
    // the same file once more: what is left to do (the collision still fails, the rest is unchanged)
    await input.setInputFiles(second);
    await page.getByTestId("plan-title").waitFor();
    assert.match((await targets.textContent()) ?? "", /2 unchanged/);
    await ctx.close();
  });
});
