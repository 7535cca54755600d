// Browser-test fixture: the built SPA served by a real ConsoleServer on 127.0.0.1, and headless Chromium
// (Debian package, /usr/bin/chromium) driven by playwright-core. No browser is downloaded.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { parseConsoleConfig } from "../../apps/console/src/config/load.ts";
import { ConsoleServer } from "../../apps/console/src/server.ts";
import type { Db } from "../../apps/console/src/store/db.ts";
import { needsBinary } from "../helpers/env.ts";
import { WEB_DIST } from "./web-build.ts";

/** Path of the Chromium the tests drive. */
export const CHROMIUM = "/usr/bin/chromium";
/** Where screenshots go (gitignored). */
export const SCREENSHOTS = join(import.meta.dirname, "../../test-output/screenshots");

/** Why the browser tests cannot run here, or undefined. */
export function browserMissing(): string | undefined {
  return needsBinary(CHROMIUM);
}

/** Builds the SPA if dist is missing or stale; one build at a time across test processes (flock). */
export function ensureWebBuilt(): void {
  const script = join(import.meta.dirname, "web-build.ts");
  const r = spawnSync(
    "flock",
    ["/tmp/svc-web-build.lock", process.execPath, "--import", "tsx", script, "--build-if-stale"],
    { stdio: "inherit" },
  );
  if (r.status !== 0) throw new Error(`web build failed (exit ${r.status})`);
}

/** Starts a console from YAML with the SPA on its HTTP port (127.0.0.1, port 0) and waits for its store. */
export async function startWebConsole(yaml: string, db?: Db): Promise<ConsoleServer> {
  const { config } = parseConsoleConfig(yaml, {});
  const server = new ConsoleServer({
    config,
    db,
    host: "127.0.0.1",
    httpPort: 0,
    metricsPort: 0,
    version: "web-test",
    webRoot: WEB_DIST,
  });
  await server.start();
  await server.whenReady();
  return server;
}

/** A page of its own (fresh context, 1280x900, 15 s default timeout) on `url`. */
export async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  return page;
}

/** Launches headless Chromium with the flags design.md names. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Saves a full-page screenshot as test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Counts requests the page sends to `path` (exact pathname). */
export function countRequests(page: Page, path: string): { count: number } {
  const c = { count: 0 };
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === path) c.count++;
  });
  return c;
}

/** A console from `yaml` serving the built SPA, and a Chromium, both started before and stopped after a suite. */
export interface WebSuite {
  readonly server: ConsoleServer;
  readonly browser: Browser;
}

/** Registers the suite's before/after hooks; the returned object holds the console and browser once started. */
export function webSuite(yaml: string): WebSuite {
  const suite: { server?: ConsoleServer; browser?: Browser } = {};
  before(async () => {
    ensureWebBuilt();
    suite.server = await startWebConsole(yaml);
    suite.browser = await launchChromium();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
  });
  return {
    get server() {
      if (!suite.server) throw new Error("web suite not started");
      return suite.server;
    },
    get browser() {
      if (!suite.browser) throw new Error("web suite not started");
      return suite.browser;
    },
  };
}
