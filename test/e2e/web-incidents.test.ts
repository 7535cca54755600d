// The Incidents page and the Overview incident cards in Chromium against a console on a real database: the list
// newest first with Load more on the keyset cursor and the status filter, an incident's page (notes with a line
// break kept, a pinned finding with its badge word, Resolve and Reopen, Delete with a second press), the Time Machine
// showing the status as of an instant with every write gone, and Overview's open-incident scan stopping after 50
// pages and saying so.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@svc/controller";
import type { Browser, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import type { Db } from "../../apps/console/src/store/db.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { skipUnless } from "../helpers/env.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

/** Stores `n` incidents directly, one second apart ending an hour ago; every `resolvedEvery`-th resolved. */
async function storeIncidents(db: Db, n: number, prefix: string, resolvedEvery = 0): Promise<void> {
  const end = Date.now() - 3_600_000;
  await db.query(
    `WITH s AS (
       SELECT g, md5($2 || g)::uuid::text AS id, $3::bigint - ($1::int - g) * 1000 AS at,
              CASE WHEN $4::int > 0 AND g % $4::int = 0 THEN 'resolved' ELSE 'open' END AS status
       FROM generate_series(1, $1::int) g
     ), i AS (
       INSERT INTO incidents (id, status, kind, scope, window_from, window_to, title, notes, opened_by,
         opened_by_display, opened_at, resolved_at, updated_at, pins)
       SELECT id, status, 'node', 'node-' || g, at - 600000, at, $2 || ' ' || g, '', 'anonymous', 'anonymous', at,
              CASE WHEN status = 'resolved' THEN at + 500 END, at, '[]' FROM s
     )
     INSERT INTO incident_transitions (incident_id, at, status)
     SELECT id, at, 'open' FROM s UNION ALL SELECT id, at + 500, 'resolved' FROM s WHERE status = 'resolved'`,
    [n, prefix, end, resolvedEvery],
  );
}

describe("console web app: incidents", skipUnless(browserMissing()), () => {
  let dbs: TestDatabases;
  let db: Db;
  let server: ConsoleServer;
  let browser: Browser;

  before(async () => {
    ensureWebBuilt();
    dbs = await testDatabases();
    db = (await dbs.fresh()).db;
    server = await startWebConsole("auth:\n  mode: anonymous\n  anonymous:\n    role: operator\n", db);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dbs?.close();
  });

  async function open(path: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.httpUrl}${path}`);
    return page;
  }
  const rows = (page: Page) => page.getByTestId("incident-row");

  test("list, Load more, filter; an incident's notes, pins, Resolve, Reopen, the Time Machine, Delete", async () => {
    await storeIncidents(db, 55, "stored", 5);
    // one made through the API: the newest, with a pinned finding
    const created = await fetch(`${server.httpUrl}/api/v1/incidents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        kind: "pair",
        scope: "node-1->node-2",
        from: new Date(Date.now() - 1_200_000).toISOString(),
        to: new Date(Date.now() - 600_000).toISOString(),
        title: "udp loss node-1 to node-2",
        pins: [
          {
            timestamp: new Date(Date.now() - 900_000).toISOString(),
            kind: "mtr-path-change",
            title: "path changed at hop 3",
            note: "right before the loss",
          },
        ],
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const incident = (await created.json()) as { id: string; openedAt: string };

    const page = await open("/");
    const cards = page.getByTestId("incident-card");
    await cards.first().waitFor();
    assert.equal(await cards.count(), 56 - 11, "open incidents only (every 5th stored one is resolved)");
    assert.match((await cards.first().textContent()) ?? "", /udp loss node-1 to node-2/, "newest first");
    assert.equal(await page.getByTestId("incident-cutoff").count(), 0, "two pages: no cut-off");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Incidents" }).click();
    await rows(page).nth(49).waitFor();
    assert.equal(await rows(page).count(), 50, "one page of 50");
    await page.getByRole("button", { name: "Load more" }).click();
    await rows(page).nth(55).waitFor();
    assert.equal(await rows(page).count(), 56);
    assert.equal(await page.getByRole("button", { name: "Load more" }).count(), 0, "the last page");
    await page.getByRole("radio", { name: "Resolved" }).check();
    await waitUntil(async () => (await rows(page).count()) === 11, "resolved filter");
    assert.ok((await rows(page).allTextContents()).every((t) => t.includes("Resolved")));
    await page.getByRole("radio", { name: "All" }).check();
    await rows(page).nth(49).waitFor();

    await rows(page).first().getByRole("link").click();
    await page.getByRole("heading", { name: "udp loss node-1 to node-2" }).waitFor();
    const finding = page.getByTestId("pinned-finding");
    assert.match((await finding.textContent()) ?? "", /Path change\s*path changed at hop 3/);
    assert.match((await finding.textContent()) ?? "", /Why it matters: right before the loss/);
    const notes = page.getByLabel("Notes text");
    await notes.fill("switch port flapping\n\treplaced at 03:10");
    await page.getByRole("button", { name: "Save notes" }).click();
    await page.getByText("Notes saved.").waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "udp loss node-1 to node-2" }).waitFor();
    assert.equal(
      await page.getByLabel("Notes text").inputValue(),
      "switch port flapping\n\treplaced at 03:10",
    );

    const resolvedBefore = Date.now();
    await page.getByRole("button", { name: "Resolve" }).click();
    await waitUntil(
      async () => /^Resolved/.test((await page.getByTestId("incident-status").textContent()) ?? ""),
      "resolved",
    );
    await page.getByRole("button", { name: "Reopen" }).click();
    await waitUntil(
      async () => (await page.getByTestId("incident-status").textContent()) === "Open",
      "reopened",
    );
    await screenshot(page, "incident-page");

    // the Time Machine: an instant between Resolve and Reopen is not known exactly; before Resolve it was Open,
    // and every write is gone
    const past = await open(`/incidents/${incident.id}?at=${new Date(resolvedBefore - 1).toISOString()}`);
    await past.getByRole("heading", { name: "udp loss node-1 to node-2" }).waitFor();
    assert.match((await past.getByTestId("incident-status").textContent()) ?? "", /^Open as of/);
    for (const name of ["Resolve", "Reopen", "Delete", "Save notes", "Unpin"])
      assert.equal(await past.getByRole("button", { name }).count(), 0, name);
    const before = await open(`/incidents?at=${new Date(Date.parse(incident.openedAt) - 1).toISOString()}`);
    await rows(before).nth(49).waitFor();
    assert.ok(
      !(await rows(before).allTextContents()).some((t) => t.includes("udp loss")),
      "not declared before it was opened",
    );

    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Press again to delete" }).click();
    await page.waitForURL(/\/incidents$/);
    await rows(page).nth(49).waitFor();
    assert.ok(!(await rows(page).allTextContents()).some((t) => t.includes("udp loss")), "deleted");
  });

  test("Overview stops scanning after 50 pages and says so", async () => {
    await storeIncidents(db, 2500, "bulk");
    const page = await open("/");
    const cutoff = page.getByTestId("incident-cutoff");
    await cutoff.waitFor({ timeout: 60_000 });
    assert.match((await cutoff.textContent()) ?? "", /newest 50 pages \(2500 incidents\) and stopped/);
    assert.equal(await page.getByTestId("incident-card").count(), 2500);
  });
});
