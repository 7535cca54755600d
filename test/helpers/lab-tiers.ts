/**
 * Test/bench helper: how a lab's console tiers a pair, read as a user does — the pair API signed in as the lab's
 * administrator, and the cell painted in a Matrix page — and how long until it turns (detection speed).
 */
import type { FleetPair, FleetTier } from "@svc/contract";
import type { Lab } from "@svc/lab";
import type { Browser, Page } from "playwright-core";

/** Signs in to the lab's console with its bootstrap administrator; returns the Cookie header value. */
export async function labConsoleCookie(lab: Lab): Promise<string> {
  const admin = lab.consoleAdmin;
  if (!lab.consoleUrl || !admin) throw new Error("the lab has no console");
  const res = await fetch(`${lab.consoleUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(admin),
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** The pair's tier for `protocol` in GET /api/v1/fleet/pairs/{s}/{d}; undefined when it does not answer 200. */
export async function pairTier(
  lab: Lab,
  cookie: string,
  s: string,
  d: string,
  protocol: "tcp" | "udp" | "icmp" | "pmtu",
): Promise<FleetTier | undefined> {
  const res = await fetch(`${lab.consoleUrl}/api/v1/fleet/pairs/${s}/${d}?window=15m`, {
    headers: { cookie },
  });
  if (res.status !== 200) return undefined;
  return ((await res.json()) as FleetPair).protocols[protocol].tier;
}

/** A Matrix page of the lab's console in a new context, signed in through the sign-in form. */
export async function labMatrixPage(lab: Lab, browser: Browser, protocol: string): Promise<Page> {
  const admin = lab.consoleAdmin;
  if (!lab.consoleUrl || !admin) throw new Error("the lab has no console");
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${lab.consoleUrl}/sign-in`);
  await page.getByLabel("Username").fill(admin.username);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/sign-in"));
  await page.goto(`${lab.consoleUrl}/matrix?protocol=${protocol}`);
  return page;
}

/** The tier painted in the Matrix page's cell s -> d (undefined while the cell is not drawn). */
export async function cellTier(page: Page, s: string, d: string): Promise<FleetTier | undefined> {
  const a = page.locator(`a[data-source="${s}"][data-destination="${d}"]`);
  const t = await a.getAttribute("data-tier", { timeout: 1000 }).catch(() => null);
  return (t ?? undefined) as FleetTier | undefined;
}

/** ms until `read` satisfies `want`, polled every `pollMs`; Infinity after `limitMs`. */
export async function msUntil(
  read: () => Promise<FleetTier | undefined>,
  want: (t: FleetTier) => boolean,
  limitMs: number,
  pollMs = 250,
): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < limitMs) {
    const t = await read().catch(() => undefined);
    if (t !== undefined && want(t)) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return Number.POSITIVE_INFINITY;
}
