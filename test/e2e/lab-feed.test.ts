// Issue 19's lab check, as an SRE sees it: in `svc lab` (controller events on, the console fed by its stream), an
// agent killed with SIGKILL (no goodbye: the controller evicts it when its TTL lapses) shows up in the Events page
// as a TopologyChanged row without a reload, within one agent TTL plus the sweep; reloading the page still shows it
// (it comes from stored history then, not from the socket).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Lab } from "@svc/lab";
import type { Browser, Page } from "playwright-core";
import { skipUnless } from "../helpers/env.ts";
import { browserMissing, ensureWebBuilt, launchChromium, openPage, screenshot } from "./web-harness.ts";

/** controller.agentTtl in the lab (the default) */
const TTL_MS = 30_000;
/** the agent heartbeats every 5 s: its last one may have landed up to 5 s before the kill */
const EARLIEST_MS = TTL_MS - 5_000;
/** the sweep lands at most 1 s late; slack for a loaded machine */
const LATEST_MS = TTL_MS + 1_000 + 4_000;

describe("svc lab: a killed agent in the live feed and in history", skipUnless(browserMissing()), () => {
  let lab: Lab;
  let browser: Browser;
  let page: Page;

  before(async () => {
    ensureWebBuilt();
    lab = new Lab({ agents: 2, netns: false, prometheus: false, removeDirOnStop: true });
    await lab.start();
    browser = await launchChromium();
    const admin = lab.consoleAdmin;
    assert.ok(admin, "the lab started its console");
    page = await openPage(browser, `${lab.consoleUrl}/events`);
    await page.getByLabel("Username").fill(admin.username);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await lab?.stop();
  });

  const evictedRow = () =>
    page
      .getByTestId("feed-row")
      .filter({ hasText: "agent-left node-2 (evicted)" })
      .filter({ hasText: "node-2" });

  test("SIGKILL of node-2's agent: the evicted row arrives live within one TTL, and is there after a reload", async () => {
    // the feed is live before the kill, so the row can only come over the socket
    await page.getByTestId("feed-badge").filter({ hasText: "Live" }).waitFor();
    assert.equal(await evictedRow().count(), 0);
    const killedAt = Date.now();
    lab.node("node-2").process.child.kill("SIGKILL");
    // one TTL, the controller's sweep and the delivery; generous for a loaded machine, the row's own time is judged
    await evictedRow()
      .first()
      .waitFor({ timeout: TTL_MS + 30_000 });
    const at = Date.parse((await evictedRow().first().locator("time").getAttribute("datetime")) ?? "");
    assert.ok(Number.isFinite(at), "the row carries its instant");
    assert.ok(at - killedAt <= LATEST_MS, `evicted ${at - killedAt} ms after the kill (TTL ${TTL_MS} ms)`);
    assert.ok(at - killedAt >= EARLIEST_MS, `not evicted before the TTL could lapse (${at - killedAt} ms)`);
    await screenshot(page, "lab-feed-evicted");

    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    await evictedRow().first().waitFor();
    assert.equal(await evictedRow().count(), 1, "listed once after the reload (history)");
  });
});
