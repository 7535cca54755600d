// The Investigation page in Chromium against a console on a real database and a real Prometheus holding a pair's
// udp loss (promtool backfill): the onset is the first step above 1 %, the rows before it are ranked as spec §4.5
// says (a path change 90 s before, a fleet event 40 s before, a maintenance window 120 s before, and an annotation
// 10 s before with weight 0 last), every gated or absent source is disclosed, Export JSON downloads the
// committed parameters, rows and scores, Create maintenance holds the pair, and Save as incident opens the
// permalink `?incident=<id>` where a row is pinned with its note.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Incident, MaintenanceWindow } from "@svc/contract";
import type { Browser, Page } from "playwright-core";
import { EventStore } from "../../apps/console/src/events/event-store.ts";
import {
  type BackfilledPrometheus,
  startBackfilledPrometheus,
} from "../../apps/console/src/fleet/testdata/backfill.ts";
import { MtrHistory } from "../../apps/console/src/runs/mtr-history.ts";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { needsBinary, skipUnless } from "../helpers/env.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

const PROM = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const ONSET = Math.floor(Date.now() / 1000 / 60) * 60 - 3600; // an hour ago, on a minute boundary (s)
const FROM = new Date((ONSET - 30 * 60) * 1000).toISOString();
const TO = new Date((ONSET + 5 * 60) * 1000).toISOString();
const ms = (deltaS: number) => (ONSET - deltaS) * 1000;

describe(
  "console web app: Investigation",
  skipUnless(browserMissing() ?? needsBinary(PROM) ?? needsBinary(PROMTOOL)),
  () => {
    let dbs: TestDatabases;
    let prom: BackfilledPrometheus;
    let server: ConsoleServer;
    let browser: Browser;

    before(async () => {
      ensureWebBuilt();
      const samples = Array.from({ length: 161 }, (_, k) => ONSET - 35 * 60 + k * 15);
      prom = await startBackfilledPrometheus(PROM, PROMTOOL, [
        {
          name: "svc_udp_packet_loss_ratio",
          labels: {
            source_node: "node-1",
            destination_node: "node-2",
            source_zone: "z1",
            destination_zone: "z1",
          },
          samples: samples.map((t) => [t, t >= ONSET ? 0.4 : 0] as const),
        },
      ]);
      dbs = await testDatabases();
      const fresh = await dbs.fresh();
      server = await startWebConsole(
        `auth:\n  mode: anonymous\n  anonymous:\n    role: operator\nprometheus:\n  url: ${prom.url}\n`,
        fresh.db,
      );
      // the records before the onset, stored as the console stores them (its schema is migrated by now)
      const hop = (ip: string) => ({ number: 1, ip, rtt: 1e6, lossRatio: 0 });
      const mtr = new MtrHistory(fresh.db);
      await mtr.record("node-1", "node-2", { details: { hops: [hop("198.18.0.1")] } }, "run", ms(20 * 60));
      await mtr.record("node-1", "node-2", { details: { hops: [hop("198.18.0.7")] } }, "run", ms(90));
      await new EventStore(fresh.db).insert({
        topic: "live",
        seq: 1,
        atNs: BigInt(ms(40)) * 1_000_000n,
        at: ms(40),
        type: "CheckObserved",
        severity: "warn",
        scope: "node-1->node-2",
        summary: "Check observed tcp node-1 -> node-2 failed",
        payload: {},
        receivedAt: ms(40),
      });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await prom?.close();
      await dbs?.close();
    });

    async function open(path: string): Promise<Page> {
      const ctx = await browser.newContext({
        viewport: { width: 1280, height: 1000 },
        acceptDownloads: true,
      });
      const page = await ctx.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${server.httpUrl}${path}`);
      return page;
    }
    /** A write from inside the page (session and CSRF cookies as the app sends them). */
    async function write(page: Page, method: string, path: string, body: unknown): Promise<number> {
      return page.evaluate(
        async ([m, p, b]) => {
          const csrf =
            /(?:^|; )[^=]*_csrf=([^;]*)/.exec(
              (globalThis as unknown as { document: { cookie: string } }).document.cookie,
            )?.[1] ?? "";
          const r = await fetch(p as string, {
            method: m as string,
            headers: { "content-type": "application/json", "x-csrf-token": decodeURIComponent(csrf) },
            body: JSON.stringify(b),
          });
          return r.status;
        },
        [method, path, body] as const,
      );
    }
    async function read<T>(page: Page, path: string): Promise<T> {
      return page.evaluate(async (p) => (await fetch(p)).json(), path) as Promise<T>;
    }

    test("ranked causes, disclosures, export, maintenance and Save as incident with a pinned row", async () => {
      const search = new URLSearchParams({ kind: "pair", scope: "node-1 => node-2", from: FROM, to: TO });
      let page = await open(`/investigate?${search}`);
      // an annotation and a maintenance window, written through the API as a user would
      assert.equal(
        await write(page, "POST", "/api/v1/annotations", {
          at: new Date(ms(10)).toISOString(),
          text: "switch firmware upgrade",
          scope: "node-1->node-2",
        }),
        201,
      );
      assert.equal(
        await write(page, "POST", "/api/v1/maintenance-windows", {
          scope: "pair",
          source: "node-1",
          destination: "node-2",
          startAt: new Date(ms(120)).toISOString(),
          endAt: new Date(ms(-600)).toISOString(),
          reason: "rack work",
        }),
        201,
      );
      await page.reload();
      const causes = page.getByRole("region", { name: "Likely causes" });
      await causes.getByRole("listitem").first().waitFor();
      assert.match((await causes.textContent()) ?? "", /Onset/);
      const items = await causes.getByRole("listitem").allTextContents();
      assert.equal(items.length, 4, items.join("\n"));
      assert.match(
        items[0] ?? "",
        /Path change.*Path changed node-1->node-2.*90s before the onset · weight 3.*score 2\.10/,
      );
      assert.match(
        items[1] ?? "",
        /Fleet event.*Check observed.*40s before the onset · weight 2.*score 1\.73/,
      );
      assert.match(items[2] ?? "", /Maintenance.*120s before the onset · weight 1.*score 0\.60/);
      assert.match(
        items[3] ?? "",
        /Annotation.*switch firmware upgrade.*10s before the onset · weight 0.*score 0\.00/,
      );

      const timeline = (await page.getByRole("region", { name: "Timeline" }).textContent()) ?? "";
      assert.match(timeline, /Threshold.*udp packet loss above 1% \(40%\)/);
      assert.match(timeline, /Annotation.*switch firmware upgrade/);
      const sources = (await page.getByRole("region", { name: "Sources" }).textContent()) ?? "";
      assert.match(sources, /Audit: not shown \(needs audit:read\)/);
      assert.match(sources, /Cluster events: not captured/);
      assert.match(sources, /only the 20 most recent runs/);

      // Export JSON: the committed parameters (pair scope normalised), every row, the causes with scores
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export JSON" }).click(),
      ]);
      assert.equal(download.suggestedFilename(), `investigation-${FROM.replace(/:/g, "-")}.json`);
      const doc = JSON.parse(readFileSync((await download.path()) as string, "utf8")) as {
        parameters: Record<string, string>;
        causes: { kind: string; score: number; label: string }[];
        timeline: unknown[];
      };
      assert.deepEqual(doc.parameters, { kind: "pair", scope: "node-1->node-2", from: FROM, to: TO });
      assert.deepEqual(
        doc.causes.map((c) => [c.kind, Number(c.score.toFixed(3))]),
        [
          ["mtr-path-change", 2.1],
          ["fleet-event", 1.733],
          ["maintenance-window", 0.6],
          ["annotation", 0],
        ],
      );
      assert.ok(doc.timeline.length >= 5);

      // Create maintenance: a window over the pair from now
      await page.getByRole("form", { name: "Create maintenance" }).getByRole("button").click();
      await page.getByText("Maintenance window created.").waitFor();
      const windows = (await read<{ windows: MaintenanceWindow[] }>(page, "/api/v1/maintenance-windows"))
        .windows;
      assert.ok(
        windows.some(
          (w) =>
            w.scope === "pair" &&
            w.source === "node-1" &&
            w.destination === "node-2" &&
            w.reason !== "rack work",
        ),
      );

      // Save as incident: the permalink carries only the incident key and opens the same window
      await page
        .getByRole("form", { name: "Save as incident" })
        .getByLabel("Title")
        .fill("node-1 to node-2 loss");
      await page.getByRole("button", { name: "Save as incident" }).click();
      await page.waitForURL(/\/investigate\?incident=[^&]+$/);
      const id = new URL(page.url()).searchParams.get("incident") ?? "";
      page = await open(`/investigate?incident=${id}`);
      await page.getByText("Incident: node-1 to node-2 loss").waitFor();
      await page.getByRole("region", { name: "Likely causes" }).getByRole("listitem").first().waitFor();
      await page.getByLabel(/Why it matters/).fill("the path moved just before the loss");
      const pathRow = page.getByRole("row").filter({ hasText: "Path changed node-1->node-2" }).first();
      await pathRow.getByRole("button", { name: "Pin" }).click();
      await pathRow.getByText("pinned").waitFor();
      // threshold rows cannot be pinned
      assert.equal(
        await page
          .getByRole("row")
          .filter({ hasText: "udp packet loss above 1%" })
          .getByRole("button")
          .count(),
        0,
      );
      const inc = await read<Incident>(page, `/api/v1/incidents/${id}`);
      assert.equal(inc.kind, "pair");
      assert.equal(inc.scope, "node-1->node-2");
      assert.equal(inc.from, FROM);
      assert.deepEqual(
        inc.pins.map((p) => [p.kind, p.badge, p.note]),
        [["mtr-path-change", "Path change", "the path moved just before the loss"]],
      );
      await screenshot(page, "investigate-incident");
    });

    test("bad parameters are refused in words; the Time Machine leaves only Export", async () => {
      const page = await open(`/investigate?kind=pair&scope=node-1&from=${FROM}&to=${TO}`);
      await page.getByText("Write a pair of nodes as <source>-><destination>.").waitFor();
      assert.equal(await page.getByRole("region", { name: "Timeline" }).count(), 0);
      const unknown = await open("/investigate?incident=no-such-incident");
      await unknown.getByText("No such incident").waitFor();
      // under the Time Machine the view is read-only: Export stays, Save as incident and Create maintenance go
      const search = new URLSearchParams({
        kind: "pair",
        scope: "node-1->node-2",
        from: FROM,
        to: TO,
        at: TO,
      });
      const past = await open(`/investigate?${search}`);
      await past.getByText("The Time Machine is on: saving and creating maintenance are off.").waitFor();
      assert.equal(await past.getByRole("button", { name: "Export JSON" }).count(), 1);
      assert.equal(await past.getByRole("button", { name: "Save as incident" }).count(), 0);
      assert.equal(await past.getByRole("button", { name: "Create maintenance" }).count(), 0);
    });
  },
);
