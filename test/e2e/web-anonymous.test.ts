// The console SPA in anonymous mode without a database, in Chromium: the warning banner on every page, the
// degraded backends named, no sign-out, Settings offers nothing to a viewer, keyboard navigation, a phone width,
// and the server side of SPA serving (client-route fallback, JSON 404 under /api/, security headers).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Fastify from "fastify";
import { addWebRoutes, WEB_CSP } from "../../apps/console/src/web/static.ts";
import { skipUnless } from "../helpers/env.ts";
import { WEB_DIST } from "./web-build.ts";
import { browserMissing, screenshot, webSuite } from "./web-harness.ts";

describe("console web app, anonymous mode", skipUnless(browserMissing()), () => {
  const web = webSuite("auth:\n  mode: anonymous\n");

  test("client routes get the app shell, /api/ keeps its JSON 404, pages carry security headers", async () => {
    const page = await fetch(`${web.server.httpUrl}/settings?tab=users`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(page.headers.get("content-security-policy"), WEB_CSP);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    const html = await page.text();
    assert.match(html, /<meta name="svc-auth-mode" content="anonymous">/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, "index.html names its bundle");
    const js = await fetch(`${web.server.httpUrl}${script}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type") ?? "", /javascript/);
    assert.match(js.headers.get("cache-control") ?? "", /immutable/);
    const api404 = await fetch(`${web.server.httpUrl}/api/v1/no-such-route`);
    assert.equal(api404.status, 404);
    assert.deepEqual(await api404.json(), { error: { code: "not_found", message: "not found" } });
    assert.equal((await fetch(`${web.server.httpUrl}/assets/missing.js`)).status, 404);
    assert.equal((await fetch(`${web.server.httpUrl}/api/v1/config`)).status, 200, "API routes still answer");
  });

  test("every page shows the anonymous banner and the degraded backends; no sign-out", async () => {
    const ctx = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    for (const [path, heading, shot] of [
      ["/", "Overview", "anonymous-overview"],
      ["/matrix", "Matrix", "anonymous-matrix"],
      ["/topology", "Topology", "anonymous-topology"],
      ["/settings", "Settings", "anonymous-settings"],
    ] as const) {
      await page.goto(`${web.server.httpUrl}${path}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      const banner = page.getByTestId("anonymous-banner");
      await banner.waitFor();
      assert.match(await banner.innerText(), /Anonymous mode\..*viewer/s);
      const notices = await page.getByRole("list", { name: "Degraded backends" }).innerText();
      assert.match(notices, /Metrics server not configured/);
      assert.match(notices, /Controller not configured/);
      assert.match(notices, /No database/);
      await screenshot(page, shot);
    }
    // Settings: a viewer is offered no section at all
    assert.equal(await page.getByText(/grant no settings/).count(), 1);
    assert.equal(await page.getByRole("button", { name: "Create user" }).count(), 0);
    await page.getByRole("button", { name: "Anonymous" }).click();
    assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 0);
    await ctx.close();
  });

  test("keyboard: Tab reaches the navigation and Enter follows a link; focus is visible", async () => {
    const ctx = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${web.server.httpUrl}/`);
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    const seen: string[] = [];
    for (let i = 0; i < 30 && !seen.includes("Settings"); i++) {
      await page.keyboard.press("Tab");
      seen.push(await page.evaluate("document.activeElement ? document.activeElement.textContent : ''"));
    }
    assert.ok(seen.includes("Skip to content"), `skip link first: ${seen.join(" | ")}`);
    assert.equal(seen.at(-1), "Settings", `Tab order: ${seen.join(" | ")}`);
    const outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle");
    assert.equal(outline, "solid", "focused link has a visible outline");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/settings");
    await ctx.close();
  });

  test("a 390 px phone screen: the menu button opens the navigation", async () => {
    const ctx = await web.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${web.server.httpUrl}/`);
    await page.getByTestId("anonymous-banner").waitFor();
    const matrix = page.getByRole("link", { name: "Matrix" });
    assert.equal(await matrix.isVisible(), false, "navigation folded behind Menu");
    await screenshot(page, "anonymous-overview-390px");
    await page.getByRole("button", { name: "Menu" }).click();
    await matrix.click();
    await page.getByRole("heading", { level: 1, name: "Matrix" }).waitFor();
    const width = await page.evaluate("document.documentElement.scrollWidth");
    assert.ok(Number(width) <= 390, `no horizontal scroll at 390 px (scrollWidth ${width})`);
    await screenshot(page, "anonymous-matrix-390px");
    await ctx.close();
  });

  test("an OIDC console's sign-in page offers the identity provider and keeps the return path", async () => {
    // only the pages: the sign-in page must know the mode from index.html alone (the API needs a caller)
    const bare = Fastify({ logger: false });
    await addWebRoutes(bare, { root: WEB_DIST, authMode: "oidc" });
    const base = await bare.listen({ host: "127.0.0.1", port: 0 });
    try {
      const ctx = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${base}/sign-in?next=${encodeURIComponent("/settings?tab=tokens")}`);
      const button = page.getByRole("link", { name: "Sign in with your identity provider" });
      await button.waitFor();
      assert.equal(
        await button.getAttribute("href"),
        `/api/v1/auth/oidc/start?returnTo=${encodeURIComponent("/settings?tab=tokens")}`,
      );
      assert.equal(await page.getByLabel("Password").count(), 0, "no password form in OIDC mode");
      await screenshot(page, "oidc-sign-in");
      await ctx.close();
    } finally {
      await bare.close();
    }
  });
});
