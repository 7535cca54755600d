// Annotations on the Events page in Chromium against a real console with a database, fed by a real controller's
// event stream (agents registered over gRPC): an operator adds a point note and a ranged annotation through the
// page, sees them interleaved with events by time under the badges Note and Annotation (span), edits one, deletes
// one, and finds the stored state after a reload; a viewer (no incidents:write) sees them without any controls.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@svc/controller";
import type { Browser, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { skipUnless } from "../helpers/env.ts";
import { type EventsController, startEventsController } from "./events-controller.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

/** What a user types into `<input type="datetime-local">` for an instant (the browser's time zone is the test's). */
function localInputValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

describe("console web app: annotations in the event feed", skipUnless(browserMissing()), () => {
  let fleet: EventsController;
  let dbs: TestDatabases;
  let server: ConsoleServer;
  let browser: Browser;
  const register = (name: string) => fleet.register(name);

  before(async () => {
    ensureWebBuilt();
    fleet = await startEventsController(91);
    dbs = await testDatabases();
    server = await startWebConsole(
      "auth:\n  mode: header\n  header: { trustedProxyCIDRs: [127.0.0.1/32] }\n" +
        "  groupRoles: { ops: operator, watchers: viewer }\n" +
        fleet.consoleYaml(),
      (await dbs.fresh()).db,
    );
    await waitUntil(() => server.history.ingester?.status().connected === true, "console fed");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await fleet?.stop();
    await dbs?.close();
  });

  /** The Events page as `user` of `group` (the trusted proxy's headers). */
  async function open(user: string, group: string): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      extraHTTPHeaders: { "x-remote-user": user, "x-remote-groups": group },
    });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.httpUrl}/events`);
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    return page;
  }
  /** The feed's rows as a user reads them: badge or severity, then the summary. */
  const feed = (page: Page) =>
    page
      .getByTestId("feed")
      .locator("tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => {
          const cells = [...tr.querySelectorAll("td")].map((td) => td.innerText.trim());
          return tr.getAttribute("data-testid") === "feed-note"
            ? `${cells[1]}: ${tr.querySelector(".note-text")?.textContent ?? ""}`
            : `${cells[1]}: ${cells[2]}`;
        }),
      );
  const cell = (page: Page, text: string) => page.getByRole("cell", { name: text, exact: true }).first();

  test("add a note and a span, interleaved by time with badges; edit, delete, reload; a viewer has no controls", async () => {
    const page = await open("olga", "ops");
    await page.getByTestId("feed-badge").getByText("Live").waitFor();
    await register("an-1");
    await cell(page, "an-1").waitFor();

    const form = page.getByRole("form", { name: "Add annotation" });
    // the form is folded behind a button: the feed starts near the top of the page
    assert.equal(await form.count(), 0, "no form until asked for");
    const feedTop = (await page.locator("table").first().boundingBox())?.y ?? 9999;
    assert.ok(feedTop < 450, `the feed starts ${feedTop} px down a 900 px window`);
    await screenshot(page, "events-annotation-folded");
    await page.getByRole("button", { name: "Add annotation" }).click();
    await form.waitFor();
    await screenshot(page, "events-annotation-open");
    // a point note now (after an-1 joined)
    await form.getByLabel("Text").fill("rolled the CNI daemonset");
    await form.getByLabel("Scope (empty for the whole fleet)").fill("an-1");
    await form.getByRole("button", { name: "Add" }).click();
    await page.getByText("rolled the CNI daemonset").waitFor();
    // the form clears once the note is stored
    await waitUntil(
      async () => (await form.getByLabel("Text").inputValue()) === "",
      "the form cleared",
      15_000,
    );
    // a span that started and ended before any of this
    const start = Date.now() - 20 * 60_000;
    await form.getByLabel("Text").fill("switch firmware upgrade");
    await form.getByLabel("Start (empty for now)").fill(localInputValue(start));
    await form.getByLabel("End (for a span)").fill(localInputValue(start + 10 * 60_000));
    await form.getByRole("button", { name: "Add" }).click();
    await page.getByText("switch firmware upgrade").waitFor();
    // then an-2 joins: its rows are the newest
    await register("an-2");
    await cell(page, "an-2").waitFor();
    await waitUntil(async () => (await feed(page)).length === 6, "6 rows", 15_000);
    const rows = await feed(page);
    assert.match(rows[0] ?? "", /^Info: Topology changed: .* an-2/);
    assert.match(rows[1] ?? "", /^Info: Topology changed: .* an-2/);
    assert.equal(rows[2], "Note: rolled the CNI daemonset");
    assert.match(rows[3] ?? "", /^Info: Topology changed: .* an-1/);
    assert.match(rows[4] ?? "", /^Info: Topology changed: .* an-1/);
    assert.equal(rows[5], "Annotation (span): switch firmware upgrade");
    await screenshot(page, "annotations-feed");

    // edit the note
    const note = page.getByTestId("feed-note").filter({ hasText: "rolled the CNI daemonset" });
    await note.getByRole("button", { name: "Edit" }).click();
    const edit = note.getByRole("form", { name: "Edit annotation" });
    await edit.getByRole("textbox").fill("rolled the CNI daemonset to v1.15");
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByText("rolled the CNI daemonset to v1.15").waitFor();
    // delete the span (two presses)
    const span = page.getByTestId("feed-note").filter({ hasText: "switch firmware upgrade" });
    await span.getByRole("button", { name: "Delete" }).click();
    await span.getByRole("button", { name: "Delete this annotation" }).click();
    await span.waitFor({ state: "detached" });

    // the stored state after a reload
    await page.reload();
    await waitUntil(async () => (await feed(page)).length === 5, "5 rows after reload", 15_000);
    assert.equal((await feed(page))[2], "Note: rolled the CNI daemonset to v1.15");
    assert.equal(await page.getByText("switch firmware upgrade").count(), 0);
    await page.context().close();

    // a viewer reads annotations but has no add, edit or delete controls
    const viewer = await open("vic", "watchers");
    await viewer.getByText("rolled the CNI daemonset to v1.15").waitFor();
    await waitUntil(async () => (await feed(viewer)).length === 5, "viewer sees 5 rows", 15_000);
    assert.equal(await viewer.getByRole("form", { name: "Add annotation" }).count(), 0);
    assert.equal(await viewer.getByRole("button", { name: "Add annotation" }).count(), 0);
    assert.equal(await viewer.getByRole("button", { name: "Edit" }).count(), 0);
    assert.equal(await viewer.getByRole("button", { name: "Delete" }).count(), 0);
    await screenshot(viewer, "annotations-viewer");
    await viewer.context().close();
  });
});
