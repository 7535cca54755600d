/**
 * Time to first paint of the Matrix page in Chromium: each load in a fresh browser context (no cache, no
 * session), timed by the page itself: navigation start to the `svc:matrix-painted` mark the matrix sets once its
 * frame is shown, and the API response's end (resource timing of /api/v1/fleet/matrix) to that mark.
 */
import type { Browser } from "playwright-core";

/** One load: first paint and the render share of it, ms. */
export interface FirstPaint {
  paint: number;
  render: number;
}

/** `runs` loads of `url`; throws when the matrix does not paint within 120 s. */
export async function firstPaints(browser: Browser, url: string, runs: number): Promise<FirstPaint[]> {
  const out: FirstPaint[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName("svc:matrix-painted").length > 0, null, {
        timeout: 120_000,
        polling: 100,
      });
      const t = await page.evaluate(() => {
        const mark = performance.getEntriesByName("svc:matrix-painted")[0];
        const api = performance
          .getEntriesByType("resource")
          .find((e) => new URL(e.name).pathname === "/api/v1/fleet/matrix") as
          | { responseEnd: number }
          | undefined;
        return { paint: mark?.startTime ?? Number.NaN, apiEnd: api?.responseEnd ?? Number.NaN };
      });
      if (!Number.isFinite(t.paint) || !Number.isFinite(t.apiEnd))
        throw new Error(`no timing entries: ${JSON.stringify(t)}`);
      out.push({ paint: t.paint, render: t.paint - t.apiEnd });
    } finally {
      await context.close();
    }
  }
  return out;
}
