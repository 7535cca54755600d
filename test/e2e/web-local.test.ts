// The console SPA in local mode on PGlite, in Chromium: sign-in (empty fields refused before any request, 401 and
// 429 worded for people, return to where the user was), admin and viewer views of Settings, user lifecycle from
// the admin's browser while the user is signed in elsewhere, API tokens created and revoked in the UI and used
// from outside the browser, screenshots of each page.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PGlite } from "@electric-sql/pglite";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { pgliteDb, startPglite } from "../../apps/console/src/store/pglite.ts";
import { skipUnless } from "../helpers/env.ts";
import {
  browserMissing,
  countRequests,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

const ADMIN_PASSWORD = "correct horse battery";
const CAROL_PASSWORD = "carol's long password";

describe("console web app, local sign-in", skipUnless(browserMissing()), () => {
  let dir: string;
  let pglite: PGlite;
  let server: ConsoleServer;
  let browser: Browser;
  const url = (path: string) => `${server.httpUrl}${path}`;

  before(async () => {
    ensureWebBuilt();
    dir = mkdtempSync(join(tmpdir(), "svc-web-local-"));
    writeFileSync(join(dir, "admin-password"), `${ADMIN_PASSWORD}\n`);
    pglite = await startPglite("memory");
    const db = await pgliteDb(pglite, { ownsInstance: false });
    server = await startWebConsole(
      [
        "auth:",
        "  mode: local",
        "  local:",
        "    bootstrapAdmin: admin",
        `    bootstrapPasswordFile: ${join(dir, "admin-password")}`,
        "database:",
        "  url: pglite:memory",
      ].join("\n"),
      db,
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await pglite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function newPage(width = 1280): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    return { ctx, page };
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name }).waitFor();
  const userRow = (page: Page, name: string) => page.locator(`tr[data-user="${name}"]`);

  test("sign-in refuses empty fields in the browser, words 401 and 429, then returns to the page asked for", async () => {
    const { ctx, page } = await newPage();
    const logins = countRequests(page, "/api/v1/auth/login");
    await page.goto(url("/settings?tab=users"));
    await heading(page, "Sign in to svc console");
    assert.equal(new URL(page.url()).pathname, "/sign-in");
    await screenshot(page, "local-sign-in");

    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Enter your username.").waitFor();
    await page.getByLabel("Username").fill("admin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Enter your password.").waitFor();
    assert.equal(logins.count, 0, "no request for an empty field");

    await signIn(page, "admin", "not the password");
    await page.getByText("Wrong username or password.").waitFor();
    assert.equal(logins.count, 1);

    // the per-username budget (5 a minute) is spent on a name of its own, so admin stays usable
    for (let i = 0; i < 5; i++) {
      await signIn(page, "mallory", "wrong password!");
      await page.getByText(/Wrong username or password\.|Too many attempts/).waitFor();
    }
    await signIn(page, "mallory", "wrong password!");
    await page.getByText(/^Too many attempts, try again in \d+ s\.$/).waitFor();
    await screenshot(page, "local-sign-in-429");

    await signIn(page, "admin", ADMIN_PASSWORD);
    await heading(page, "Settings");
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, "/settings?tab=users");
    await ctx.close();
  });

  test("admin manages users; a viewer sees no admin action; disabling a signed-in user ends on sign-in", async () => {
    const admin = await newPage();
    await admin.page.goto(url("/"));
    await signIn(admin.page, "admin", ADMIN_PASSWORD);
    await heading(admin.page, "Overview");
    await screenshot(admin.page, "local-admin-overview");
    for (const [path, name] of [
      ["/matrix", "Matrix"],
      ["/topology", "Topology"],
    ] as const) {
      await admin.page.getByRole("link", { name }).click();
      await heading(admin.page, name);
      assert.equal(new URL(admin.page.url()).pathname, path);
      await screenshot(admin.page, `local-admin-${name.toLowerCase()}`);
    }
    await admin.page.getByRole("link", { name: "Settings" }).click();
    await heading(admin.page, "Settings");
    const tabs = await admin.page.getByRole("navigation", { name: "Settings sections" }).innerText();
    for (const t of ["Users", "API tokens", "Role bindings", "Password"]) assert.match(tabs, new RegExp(t));

    // create carol (viewer)
    await admin.page.locator("#new-username").fill("carol");
    await admin.page.locator("#new-password").fill(CAROL_PASSWORD);
    await admin.page.locator("#new-role").selectOption("viewer");
    await admin.page.getByRole("button", { name: "Create user" }).click();
    await admin.page.getByText("User carol created.").waitFor();
    await userRow(admin.page, "carol").waitFor();
    await screenshot(admin.page, "local-settings-users");

    // carol signs in from a second browser: no admin section, no user actions
    const carol = await newPage();
    await carol.page.goto(url("/settings"));
    await signIn(carol.page, "carol", CAROL_PASSWORD);
    await heading(carol.page, "Settings");
    const carolTabs = await carol.page.getByRole("navigation", { name: "Settings sections" }).innerText();
    assert.doesNotMatch(carolTabs, /Users|API tokens|Role bindings/);
    assert.match(carolTabs, /Password/);
    for (const b of ["Create user", "Disable", "Delete", "Create token", "Add binding"]) {
      assert.equal(await carol.page.getByRole("button", { name: b }).count(), 0, `viewer offered ${b}`);
    }
    await screenshot(carol.page, "local-viewer-settings");
    await carol.page.getByRole("button", { name: "carol" }).click();
    await carol.page.getByText("Roles: viewer").waitFor();

    // the admin disables carol; her next navigation ends on sign-in, remembering where she was going
    await userRow(admin.page, "carol").getByRole("button", { name: "Disable" }).click();
    await admin.page.getByText("carol disabled.").waitFor();
    await userRow(admin.page, "carol").getByText("Disabled").waitFor();
    await carol.page.getByRole("link", { name: "Matrix" }).click();
    await heading(carol.page, "Sign in to svc console");
    const after = new URL(carol.page.url());
    assert.equal(after.pathname, "/sign-in");
    assert.equal(after.searchParams.get("next"), "/matrix");
    await signIn(carol.page, "carol", CAROL_PASSWORD);
    await carol.page.getByText("Wrong username or password.").waitFor();

    // re-enable, change her role (not one's own: no confirm), then delete with a second press
    await userRow(admin.page, "carol").getByRole("button", { name: "Enable" }).click();
    await userRow(admin.page, "carol").getByText("Enabled").waitFor();
    await userRow(admin.page, "carol").getByLabel("Role of carol").selectOption("operator");
    await userRow(admin.page, "carol").getByRole("button", { name: "Change role" }).click();
    await admin.page.getByText("carol now holds operator.").waitFor();
    await signIn(carol.page, "carol", CAROL_PASSWORD);
    await heading(carol.page, "Matrix");

    await userRow(admin.page, "carol").getByRole("button", { name: "Delete" }).click();
    const confirm = userRow(admin.page, "carol").getByRole("button", { name: "Confirm delete carol" });
    await confirm.waitFor();
    assert.equal(await userRow(admin.page, "carol").count(), 1, "first press deletes nothing");
    await confirm.click();
    await admin.page.getByText("carol deleted.").waitFor();
    // the notice comes with the answer, the row goes with the list read after it (later on a loaded machine)
    await userRow(admin.page, "carol").waitFor({ state: "detached" });
    assert.equal(await userRow(admin.page, "carol").count(), 0);

    // the admin's own role change asks for confirmation, and the last administrator is guarded (409 shown)
    await userRow(admin.page, "admin").getByLabel("Role of admin").selectOption("viewer");
    await userRow(admin.page, "admin").getByRole("button", { name: "Change role" }).click();
    await userRow(admin.page, "admin").getByRole("button", { name: "Confirm: change your own role" }).click();
    await admin.page.getByText(/Refused: .*last administrator/).waitFor();

    // sign out from the identity menu
    await admin.page.getByRole("button", { name: "admin" }).first().click();
    await admin.page.getByRole("button", { name: "Sign out" }).click();
    await heading(admin.page, "Sign in to svc console");
    await admin.page.goto(url("/settings"));
    await heading(admin.page, "Sign in to svc console");
    await Promise.all([admin.ctx.close(), carol.ctx.close()]);
  });

  test("API tokens: created in the UI (shown once), used outside the browser, revoked in the UI -> 401", async () => {
    const { ctx, page } = await newPage();
    await page.goto(url("/settings?tab=tokens"));
    await signIn(page, "admin", ADMIN_PASSWORD);
    await heading(page, "Settings");
    await page.getByLabel("Name").fill("ci");
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = (await page.getByTestId("minted-token").innerText()).trim();
    assert.match(secret, /^svct_/);
    await screenshot(page, "local-settings-tokens");
    const me = () => fetch(url("/api/v1/auth/me"), { headers: { authorization: `Bearer ${secret}` } });
    assert.equal((await me()).status, 200);

    await page.getByRole("button", { name: "Done" }).click();
    assert.equal(await page.getByTestId("minted-token").count(), 0, "the value is not shown again");
    const row = page.locator('tr[data-token="ci"]');
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Confirm revoke ci" }).click();
    await row.getByText("revoked").waitFor();
    assert.equal((await me()).status, 401);
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Confirm delete ci" }).click();
    await page.getByText("Token ci deleted.").waitFor();

    await page.getByRole("link", { name: "Role bindings" }).click();
    await page.getByLabel(/^Subject/).fill("group:netops");
    await page.locator("#binding-role").selectOption("operator");
    await page.getByRole("button", { name: "Add binding" }).click();
    await page.getByText("group:netops now holds operator.").waitFor();
    await screenshot(page, "local-settings-bindings");
    await page.getByRole("link", { name: "Password" }).click();
    await screenshot(page, "local-settings-password");
    await ctx.close();
  });
});
