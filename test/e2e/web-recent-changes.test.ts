// The Recent changes rail (Node and Pair pages) and the unfed notice (Matrix and Topology) in Chromium against a
// real console fed by a real controller's event stream, agents registered over gRPC. The console reaches the
// controller's gRPC through a TCP proxy the test owns, so the test can take the event stream away and give it back.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@svc/controller";
import type { Browser, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { CookieClient } from "../../apps/console/src/testing/harness.ts";
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

describe("console web app: Recent changes rail and the unfed notice", skipUnless(browserMissing()), () => {
  let fleet: EventsController;
  let dbs: TestDatabases;
  let proxy: TcpProxy;
  let a: ConsoleServer;
  let browser: Browser;
  const fed = (s: ConsoleServer) => s.history.ingester?.status().connected === true;
  const register = (name: string) => fleet.register(name);
  const stored = async (scope: string): Promise<string[]> => {
    const res = await fetch(`${a.httpUrl}/api/v1/events?scope=${encodeURIComponent(scope)}&limit=200`);
    const body = (await res.json()) as { events: { scope: string; id: string }[] };
    return body.events.filter((e) => e.scope === scope).map((e) => e.id);
  };
  /** The stored count of `scope` once it holds still for 1.5 s (a change's events are stored one by one). */
  const settled = async (scope: string): Promise<number> => {
    let last = (await stored(scope)).length;
    for (;;) {
      await new Promise((r) => setTimeout(r, 1500));
      const n = (await stored(scope)).length;
      if (n === last) return n;
      last = n;
    }
  };

  before(async () => {
    ensureWebBuilt();
    fleet = await startEventsController(61);
    proxy = await TcpProxy.start(fleet.ctl.grpcPort);
    dbs = await testDatabases();
    const fresh = await dbs.fresh();
    a = await startWebConsole(
      `auth:\n  mode: anonymous\n  anonymous:\n    role: operator\n${fleet.consoleYaml(proxy.port)}`,
      fresh.db,
    );
    await waitUntil(() => fed(a), "console fed by the controller stream");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await a?.stop();
    await proxy?.close();
    await fleet?.stop();
    await dbs?.close();
  });

  const open = (path: string): Promise<Page> => openPage(browser, `${a.httpUrl}${path}`);
  const rail = (page: Page) => page.getByRole("complementary", { name: "Recent changes" });
  const railRows = (page: Page) => rail(page).getByTestId("rail-row");
  const scopes = async (page: Page) =>
    (await railRows(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-scope")))) as string[];
  /** Waits for the rail to show n rows; on a timeout the error says how many it showed, with a screenshot. */
  const rowCount = async (page: Page, n: number) => {
    let seen = -1;
    try {
      await waitUntil(
        async () => {
          seen = await railRows(page).count();
          return seen === n;
        },
        `${n} rail rows`,
        30_000,
      );
    } catch (err) {
      await screenshot(page, `rail-${n}-rows-not-reached`);
      throw new Error(`${(err as Error).message} (the rail showed ${seen})`);
    }
  };

  test("a node's rail lists its stored changes and a live one without reload, never another node's", async () => {
    const one = await register("node-1");
    const ten = await register("node-10");
    await register("node-2");
    await waitUntil(
      async () => (await stored("node-1")).length >= 2 && (await stored("node-10")).length >= 2,
      "joins of node-1 and node-10 stored",
    );
    const joined = await settled("node-1");
    await new Promise((r) => setTimeout(r, 1100));
    const then = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1100));

    const page = await open("/nodes/node-1");
    await page.getByRole("heading", { level: 1, name: "Node node-1" }).waitFor();
    await rowCount(page, joined);
    assert.deepEqual(
      new Set(await scopes(page)),
      new Set(["node-1"]),
      "node-10 (a substring match) not shown",
    );
    await waitUntil(
      async () => (await rail(page).getByTestId("rail-badge").textContent()) === "Live",
      "the rail tails the live topic",
      15_000,
    );
    // node-10 leaves, then node-1: the rail gains node-1's rows only, without a reload
    await fleet.raw.deregister(ten.agent_id);
    await fleet.raw.deregister(one.agent_id);
    await waitUntil(async () => (await stored("node-1")).length > joined, "node-1 left stored");
    const now = await settled("node-1");
    await rowCount(page, now);
    assert.match(await railRows(page).first().innerText(), /Topology changed: .*left node-1/);
    assert.deepEqual(new Set(await scopes(page)), new Set(["node-1"]));
    await screenshot(page, "rail-node");

    // a reload lists the same rows from history
    await page.reload();
    await rowCount(page, now);

    // under the Time Machine: history up to the instant, not tailing
    await page.goto(`${a.httpUrl}/nodes/node-1?at=${encodeURIComponent(then)}`);
    await rail(page).getByTestId("rail-past").waitFor();
    await rowCount(page, joined);
    assert.equal(await rail(page).getByTestId("rail-badge").count(), 0);
    assert.doesNotMatch(await rail(page).innerText(), /left node-1/);
    await page.context().close();
  });

  test("a pair's rail holds the pair's own scope, stored and live, not the reverse nor a longer name", async () => {
    const check = (scope: string, ok: boolean) =>
      fleet.ctl.events.publish({
        type: "CheckObserved",
        severity: ok ? "info" : "warn",
        scope,
        payload: { type: "tcp", result: ok ? "ok" : "failed" },
      });
    check("node-1->node-2", true);
    check("node-2->node-1", true);
    check("node-1->node-20", true);
    await waitUntil(async () => (await stored("node-1->node-20")).length === 1, "checks stored");
    const page = await open("/pairs/node-1/node-2");
    await page.getByRole("heading", { level: 1, name: /node-1 → node-2/ }).waitFor();
    await rowCount(page, 1);
    assert.deepEqual(await scopes(page), ["node-1->node-2"]);
    await waitUntil(
      async () => (await rail(page).getByTestId("rail-badge").textContent()) === "Live",
      "the rail tails the live topic",
      15_000,
    );
    check("node-1->node-20", false);
    check("node-1->node-2", false);
    await rowCount(page, 2);
    assert.deepEqual(await scopes(page), ["node-1->node-2", "node-1->node-2"]);
    assert.match(await railRows(page).first().innerText(), /Warn\s+Check observed: tcp node-1->node-2/);
    await screenshot(page, "rail-pair");
    await page.context().close();
  });

  test("without a database the rail says history is unavailable in one line", async () => {
    const bare = await startWebConsole("auth:\n  mode: anonymous\n  anonymous:\n    role: operator\n");
    try {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${bare.httpUrl}/nodes/node-1`);
      const state = rail(page).getByTestId("rail-state");
      await state.waitFor();
      assert.equal(
        await state.innerText(),
        "History unavailable: this console has no database; only changes arriving now are listed.",
      );
      await ctx.close();
    } finally {
      await bare.stop();
    }
  });

  test("a subject without events:read sees the rail say it is not shown", async () => {
    const fresh = await dbs.fresh();
    const hdr = await startWebConsole(
      "auth:\n  mode: header\n  header: { trustedProxyCIDRs: [127.0.0.1/32] }\n  groupRoles: { admins: admin }\n",
      fresh.db,
    );
    try {
      const headers = { "x-remote-user": "ada", "x-remote-groups": "admins" };
      const cfg = (await (await fetch(`${hdr.httpUrl}/api/v1/config`, { headers })).json()) as {
        auth: { csrfCookie: string };
      };
      const admin = new CookieClient(hdr.httpUrl, cfg.auth.csrfCookie);
      await admin.request("GET", "/api/v1/auth/me", { headers });
      const put = await admin.request("PUT", "/api/v1/rbac/roles/mtr-only", {
        headers,
        csrf: true,
        body: { permissions: ["mtr:read"] },
      });
      assert.ok(put.status < 300, `role: ${put.status} ${JSON.stringify(put.body)}`);
      const bind = await admin.request("POST", "/api/v1/rbac/bindings", {
        headers,
        csrf: true,
        body: { subject: "header:nora", role: "mtr-only" },
      });
      assert.ok(bind.status < 300, `binding: ${bind.status} ${JSON.stringify(bind.body)}`);
      const ctx = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        extraHTTPHeaders: { "x-remote-user": "nora" },
      });
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${hdr.httpUrl}/nodes/node-1`);
      const state = rail(page).getByTestId("rail-state");
      await state.waitFor();
      assert.equal(await state.innerText(), "Not shown: your role does not include events:read.");
      assert.equal(await railRows(page).count(), 0);
      await ctx.close();
    } finally {
      await hdr.stop();
    }
  });

  test("Matrix and Topology say when the console is not fed, and stop saying so when the stream returns", async () => {
    const page = await open("/matrix");
    await page.getByRole("heading", { level: 1, name: "Matrix" }).waitFor();
    assert.equal(await page.getByTestId("unfed-notice").count(), 0);
    proxy.set("refuse");
    await waitUntil(() => !fed(a), "console unfed");
    const notice = page.getByTestId("unfed-notice");
    await notice.waitFor();
    assert.match(
      await notice.innerText(),
      /Live updates paused: this console is not receiving the controller's event stream; refreshing every 15 s/,
    );
    await screenshot(page, "unfed-matrix");
    await page.getByRole("link", { name: "Topology", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "Topology" }).waitFor();
    await page.getByTestId("unfed-notice").waitFor();
    proxy.set("pass");
    await page.getByTestId("unfed-notice").waitFor({ state: "detached", timeout: 30_000 });
    assert.equal(fed(a), true);
    await page.getByRole("link", { name: "Matrix", exact: true }).first().click();
    await page.getByRole("heading", { level: 1, name: "Matrix" }).waitFor();
    assert.equal(await page.getByTestId("unfed-notice").count(), 0);
    await page.context().close();
  });
});
