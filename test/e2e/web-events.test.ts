// The Events page and the Time Machine in Chromium against real consoles fed by a real controller's event stream
// (events enabled, agents registered over gRPC): live rows, Pause with the buffered count and Resume, history after
// a reload, the gap a tab reports when a reconnect lands on another replica, and Topology as of a past instant
// showing a node that has since left, with Run check disabled there; Events as of that instant (no later rows, no
// tailing) and Start run disabled on the Runs page.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@svc/controller";
import type { Browser, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { skipUnless } from "../helpers/env.ts";
import { TcpProxy } from "../helpers/tcp-proxy.ts";
import { type EventsController, startEventsController } from "./events-controller.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  openPage,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

describe("console web app: Events page and the Time Machine", skipUnless(browserMissing()), () => {
  let fleet: EventsController;
  let dbs: TestDatabases;
  let schema: string;
  let yaml: string;
  let a: ConsoleServer;
  let browser: Browser;
  const fed = (s: ConsoleServer) => s.history.ingester?.status().connected === true;
  const register = (name: string) => fleet.register(name);

  before(async () => {
    ensureWebBuilt();
    fleet = await startEventsController(31);
    dbs = await testDatabases();
    const fresh = await dbs.fresh();
    schema = fresh.schema;
    yaml = `auth:\n  mode: anonymous\n  anonymous:\n    role: operator\n${fleet.consoleYaml()}`;
    a = await startWebConsole(yaml, fresh.db);
    await waitUntil(() => fed(a), "console A fed by the controller stream");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await a?.stop();
    await fleet?.stop();
    await dbs?.close();
  });

  const open = (url: string): Promise<Page> => openPage(browser, url);
  const rows = (page: Page) => page.getByTestId("feed-row");
  const badge = (page: Page) => page.getByTestId("feed-badge");
  const live = (page: Page) =>
    waitUntil(async () => (await badge(page).textContent()) === "Live", "the Live badge", 15_000);
  const rowCount = (page: Page, n: number) =>
    waitUntil(async () => (await rows(page).count()) === n, `${n} rows`, 15_000);
  const portOf = (s: ConsoleServer) => Number(new URL(s.httpUrl).port);

  test("live rows; Pause buffers with a count, Resume shows them; history survives a reload", async () => {
    const page = await open(`${a.httpUrl}/events`);
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    await live(page);
    const before = await rows(page).count();
    await register("ev-1");
    await rowCount(page, before + 2);
    assert.match(await rows(page).first().innerText(), /Topology changed/);
    await page.getByTestId("pause-button").click();
    assert.equal(await badge(page).innerText(), "Paused · socket live");
    await register("ev-2");
    await page.getByRole("button", { name: "Resume (2)" }).waitFor();
    assert.equal(await rows(page).count(), before + 2, "nothing new shown while paused");
    await screenshot(page, "events-paused");
    await page.getByRole("button", { name: "Resume (2)" }).click();
    assert.equal(await rows(page).count(), before + 4);
    assert.equal(await badge(page).innerText(), "Live");
    assert.equal(
      await page.getByTestId("feed-counter").innerText(),
      `Showing ${before + 4} of ${before + 4} events · capped at 2000`,
    );
    // a filter narrows the list and the counter
    await page.getByLabel("Scope contains").fill("ev-2");
    await rowCount(page, 2);
    assert.match(await page.getByTestId("feed-counter").innerText(), /^Showing 2 of \d+ events/);
    await page.getByRole("button", { name: "Clear filters" }).click();
    // history: the rows come back from the database after a reload
    await page.reload();
    await rowCount(page, before + 4);
    await page.context().close();
  });

  test("a reconnect that lands on another replica is reported as possible loss", async (t) => {
    if (dbs.kind !== "postgres") return t.skip("two replicas share one database: needs PostgreSQL");
    const b = await startWebConsole(yaml, await dbs.reopen(schema));
    const proxy = await TcpProxy.start(portOf(a));
    try {
      await waitUntil(() => fed(b), "console B fed");
      const page = await open(`http://127.0.0.1:${proxy.port}/events`);
      await live(page);
      await register("ev-3");
      await page.getByRole("cell", { name: "ev-3", exact: true }).first().waitFor();
      assert.equal(await page.getByTestId("feed-gap").count(), 0);
      // the balancer moves the tab: every connection is cut and the next ones reach replica B
      proxy.retarget(portOf(b));
      proxy.set("refuse");
      proxy.set("pass");
      const gap = page.getByTestId("feed-gap");
      await gap.waitFor();
      assert.match(
        await gap.innerText(),
        /Possible loss: .* were not delivered to this tab \(other-replica\)/,
      );
      await live(page);
      // and the tab is live on B
      await register("ev-4");
      await page.getByRole("cell", { name: "ev-4", exact: true }).first().waitFor();
      await screenshot(page, "events-gap");
      await page.context().close();
    } finally {
      await proxy.close();
      await b.stop();
    }
  });

  test("Time Machine: Topology as of a past instant shows a node that has since left; Run check disabled", async () => {
    await register("tm-1");
    const gone = await register("tm-2");
    await waitUntil(async () => {
      const res = await fetch(`${a.httpUrl}/api/v1/events?scope=tm-2&limit=10`);
      return ((await res.json()) as { events: unknown[] }).events.length >= 2;
    }, "tm-2 joined stored");
    await new Promise((r) => setTimeout(r, 1100));
    const then = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    await fleet.raw.deregister(gone.agent_id);
    await waitUntil(async () => {
      const res = await fetch(`${a.httpUrl}/api/v1/events?scope=tm-2&limit=10`);
      return ((await res.json()) as { events: unknown[] }).events.length >= 4;
    }, "tm-2 left stored");
    const page = await open(`${a.httpUrl}/topology`);
    await page.getByRole("link", { name: "tm-1", exact: true }).first().waitFor();
    assert.equal(await page.getByRole("link", { name: "tm-2", exact: true }).count(), 0, "live: tm-2 left");
    await page.goto(`${a.httpUrl}/topology?at=${encodeURIComponent(then)}`);
    const banner = page.getByTestId("time-machine-banner");
    await banner.waitFor();
    assert.match(await banner.innerText(), /Time Machine: showing the state as of/);
    await page.getByRole("link", { name: "tm-2", exact: true }).first().waitFor();
    await screenshot(page, "time-machine-topology");
    // the instant stays on the next page; Run check would probe now: disabled
    await page.getByRole("link", { name: "tm-2", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: /tm-2/ }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get("at"), then, "the instant stays on the next page");
    await page.goto(`${a.httpUrl}/pairs/tm-1/tm-2?at=${encodeURIComponent(then)}`);
    const run = page.getByRole("button", { name: "Run check" });
    await run.waitFor();
    assert.equal(await run.isDisabled(), true);
    await page.getByTestId("run-check-disabled").waitFor();
    // Events as of the instant: tm-2 joined, not yet left; nothing tails in (a node joining now stays out)
    await page.goto(`${a.httpUrl}/events?at=${encodeURIComponent(then)}`);
    await page.getByTestId("feed-badge").filter({ hasText: "Time Machine" }).waitFor();
    const rowsOf = (text: string) => page.getByTestId("feed-row").filter({ hasText: text });
    await rowsOf("agent-joined tm-2").first().waitFor();
    assert.equal(await rowsOf("agent-left tm-2").count(), 0, "tm-2 had not left at the instant");
    assert.equal(await page.getByTestId("pause-button").count(), 0, "no Pause: nothing is tailed");
    const later = await register("tm-3");
    await waitUntil(async () => {
      const res = await fetch(`${a.httpUrl}/api/v1/events?scope=tm-3&limit=10`);
      return ((await res.json()) as { events: unknown[] }).events.length >= 2;
    }, "tm-3 joined stored");
    await fleet.raw.deregister(later.agent_id);
    assert.equal(await rowsOf("tm-3").count(), 0, "a live event does not enter the past");
    // Runs as of the instant: Start run probes now, disabled
    await page.goto(`${a.httpUrl}/runs?at=${encodeURIComponent(then)}`);
    await page.getByTestId("start-run-disabled").waitFor();
    assert.equal(await page.getByRole("button", { name: "Start run" }).isDisabled(), true);
    await page.goto(`${a.httpUrl}/pairs/tm-1/tm-2?at=${encodeURIComponent(then)}`);
    await page.getByRole("button", { name: "Run check" }).waitFor();
    // Return to live drops the instant
    await page.getByRole("button", { name: "Return to live" }).click();
    await waitUntil(() => !new URL(page.url()).searchParams.has("at"), "at dropped", 15_000);
    // the page repaints after the address changes: the banner leaves and Run check comes back with that paint
    await page.getByTestId("time-machine-banner").waitFor({ state: "detached" });
    await waitUntil(
      async () => !(await page.getByRole("button", { name: "Run check" }).isDisabled()),
      "Run check enabled live",
      15_000,
    );
    await page.context().close();
  });
});
