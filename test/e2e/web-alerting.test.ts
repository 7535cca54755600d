// The Alerts, Maintenance and Settings -> Webhooks pages in Chromium against consoles on a real database and the
// real Prometheus (loading the console's rule directory): a rule drafted with Preview (what it matches now), saved,
// refused with `alert name collision` on the form, seen firing, edited, disabled and deleted; a maintenance window
// added (marked active), edited and deleted; a webhook endpoint added with a write-only secret, a signed send test
// reaching a loopback receiver (its outcome and streak on the row), edited with a new secret, disabled and deleted. A viewer sees no write
// action, the Time Machine hides them all, and a console without the webhook key says so plainly.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@svc/controller";
import { freePort, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import type { Browser, Page } from "playwright-core";
import type { ConsoleServer } from "../../apps/console/src/server.ts";
import { type TestDatabases, testDatabases } from "../../apps/console/src/testing/test-db.ts";
import { verifySignature } from "../../apps/console/src/webhooks/sign.ts";
import { needsBinary, skipUnless } from "../helpers/env.ts";
import {
  browserMissing,
  ensureWebBuilt,
  launchChromium,
  screenshot,
  startWebConsole,
} from "./web-harness.ts";

const PROM = "/usr/bin/prometheus";
const SECRET = "a-long-signing-secret-for-the-ui";

describe(
  "console web app: alerts, maintenance, webhooks",
  skipUnless(browserMissing(), needsBinary(PROM)),
  () => {
    let dbs: TestDatabases;
    let dir: string;
    let prom: ManagedProcess | undefined;
    let admin: ConsoleServer;
    let viewer: ConsoleServer;
    let keyless: ConsoleServer;
    let browser: Browser;
    let receiver: Server;
    let hookUrl = "";
    const received: { body: Buffer; signature: string | undefined }[] = [];

    before(async () => {
      ensureWebBuilt();
      dir = mkdtempSync(join(tmpdir(), "svc-web-alerting-"));
      const ruleDir = join(dir, "rules");
      const port = await freePort();
      const started = await startPrometheus({
        binary: PROM,
        dir,
        port,
        targets: [{ job: "self", targets: [`127.0.0.1:${port}`] }],
        intervalSeconds: 1,
        ruleDirectory: ruleDir,
      });
      prom = started.process;
      const keyFile = join(dir, "webhook-key");
      writeFileSync(keyFile, randomBytes(32).toString("base64"));
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          received.push({ body: Buffer.concat(chunks), signature: req.headers["x-svc-signature"] as string });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
      hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      dbs = await testDatabases();
      const yaml = (role: string, key: boolean) =>
        [
          "auth:",
          "  mode: anonymous",
          "  anonymous:",
          `    role: ${role}`,
          "prometheus:",
          `  url: ${started.url}`,
          "alerts:",
          `  ruleDirectory: ${ruleDir}`,
          ...(key ? ["webhooks:", `  encryptionKeyFile: ${keyFile}`] : []),
        ].join("\n");
      const shared = await dbs.fresh();
      admin = await startWebConsole(yaml("admin", true), shared.db);
      viewer = await startWebConsole(yaml("viewer", true), await dbs.reopen(shared.schema));
      keyless = await startWebConsole(yaml("admin", false), (await dbs.fresh()).db);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      for (const s of [admin, viewer, keyless]) await s?.stop();
      await dbs?.close();
      if (prom) await stopProcess(prom);
      await new Promise((r) => receiver?.close(r));
      rmSync(dir, { recursive: true, force: true });
    });

    async function open(server: ConsoleServer, path: string): Promise<Page> {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${server.httpUrl}${path}`);
      return page;
    }

    test("alert rules: preview, create, collision on the form, firing, edit, disable, delete", async () => {
      const page = await open(admin, "/");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
      await page.getByRole("heading", { name: "Alerts", exact: true }).waitFor();
      const form = page.getByRole("form", { name: "New rule" });
      await form.getByLabel("Name", { exact: true }).fill("Always on");
      await form.getByLabel(/^Expression/).fill('label_replace(vector(1), "pair", "a->b", "", "")');
      await form.getByLabel(/^For/).fill("0");
      await form.getByLabel(/^Labels/).fill("severity=page");
      await form.getByRole("button", { name: "Preview" }).click();
      await page.getByTestId("preview").getByText("svc_always_on matches 1 series now").waitFor();
      assert.match(
        (await page.getByTestId("preview-row").textContent()) ?? "",
        /pair="a->b".*severity="page"/,
      );
      await form.getByRole("button", { name: "Create rule" }).click();
      const row = page.locator('[data-testid="rule-row"][data-rule="Always on"]');
      await row.waitFor();
      // a preview stores nothing; a bad expression is answered on the form
      await form.getByLabel("Name", { exact: true }).fill("broken");
      await form.getByLabel(/^Expression/).fill("sum(");
      await form.getByRole("button", { name: "Preview" }).click();
      await page.getByTestId("preview-error").waitFor();
      // a name collapsing to the same alert name: 422 shown on the form
      await form.getByLabel("Name", { exact: true }).fill("always-ON!");
      await form.getByLabel(/^Expression/).fill("vector(1)");
      await form.getByRole("button", { name: "Create rule" }).click();
      await form.getByText("alert name collision").waitFor();
      assert.equal(await page.getByTestId("rule-row").count(), 1);
      await waitUntil(
        async () =>
          /Rules written to Prometheus/.test((await page.getByTestId("rule-sync").textContent()) ?? ""),
        "the rule file reached Prometheus",
        15_000,
      );
      // Prometheus evaluates it every second: firing once a page load sees it
      await waitUntil(
        async () => {
          await page.reload();
          await row.waitFor();
          return /firing \(1\)/.test((await row.getByTestId("rule-state").textContent()) ?? "");
        },
        "the rule fires",
        30_000,
      );
      await page
        .getByRole("table", { name: "Current alerts" })
        .getByText("pair=a->b, severity=page")
        .waitFor();
      await screenshot(page, "alerts-firing");

      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("form", { name: "Edit rule" });
      await edit.getByLabel(/^For/).fill("120");
      await edit.getByRole("button", { name: "Save rule" }).click();
      await row.getByText("120 s").waitFor();
      await row.getByRole("button", { name: "Disable" }).click();
      await row.getByTestId("rule-state").getByText("disabled").waitFor();
      await row.getByRole("button", { name: "Delete" }).click();
      await row.getByRole("button", { name: "Delete Always on" }).click();
      await page.getByText("No alert rules yet.").waitFor();
    });

    test("maintenance windows: add (active), edit, delete", async () => {
      const page = await open(admin, "/maintenance");
      const form = page.getByRole("form", { name: "New maintenance window" });
      await form.getByLabel("Scope").selectOption("pair");
      await form.getByLabel("Source node").fill("node-1");
      await form.getByLabel("Destination node").fill("node-2");
      await form.getByLabel("Reason").fill("switch swap");
      await form.getByRole("button", { name: "Add window" }).click();
      const row = page.getByTestId("window-row").filter({ hasText: "pair node-1 -> node-2" });
      await row.waitFor();
      assert.equal(await row.getAttribute("data-active"), "true");
      assert.equal(await row.getByTestId("window-state").textContent(), "active");
      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("form", { name: "Edit maintenance window" });
      await edit.getByLabel("Reason").fill("switch swap, rack 4");
      await edit.getByRole("button", { name: "Save window" }).click();
      await row.getByText("switch swap, rack 4").waitFor();
      // a scope without its field is refused on the form before any request
      await form.getByLabel("Scope").selectOption("node");
      await form.getByLabel("Node", { exact: true }).fill(" ");
      await form.getByRole("button", { name: "Add window" }).click();
      await form.getByText("Fill in the node of this scope.").waitFor();
      await screenshot(page, "maintenance");
      await row.getByRole("button", { name: "Delete" }).click();
      await row.getByRole("button", { name: /^Delete window on/ }).click();
      await page.getByText("No maintenance windows.").waitFor();
    });

    test("webhooks: add with a write-only secret, signed send test, edit with a new secret, disable, delete", async () => {
      const page = await open(admin, "/settings?tab=webhooks");
      const form = page.getByRole("form", { name: "Add webhook endpoint" });
      await form.getByLabel("URL").fill(hookUrl);
      await form.getByLabel("incident.created").check();
      await form.getByLabel(/^Signing secret/).fill(SECRET);
      await form.getByRole("button", { name: "Add endpoint" }).click();
      const row = page.locator(`[data-testid="webhook-row"][data-url="${hookUrl}"]`);
      await row.waitFor();
      assert.equal(
        await form.getByLabel(/^Signing secret/).inputValue(),
        "",
        "the secret is not kept on the page",
      );
      assert.match((await row.textContent()) ?? "", /incident\.created, alert\.fired, alert\.resolved/);
      assert.equal(await row.getByTestId("webhook-outcome").textContent(), "never sent");
      assert.ok(!(await page.content()).includes(SECRET), "the secret is never shown");
      await row.getByRole("button", { name: "Send test" }).click();
      await row.getByTestId("webhook-test-result").getByText("Test delivered (HTTP 204)").waitFor();
      await row
        .getByTestId("webhook-outcome")
        .getByText(/^ok \(HTTP 204\)/)
        .waitFor();
      assert.equal(await row.getByTestId("webhook-streak").textContent(), "0");
      const got = received.at(-1);
      assert.ok(
        got && verifySignature(SECRET, got.body, got.signature),
        "the test was signed with the secret",
      );
      await screenshot(page, "settings-webhooks");
      // edit: fewer events and a new secret; the next test is signed with it
      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("form", { name: "Edit webhook endpoint" });
      await edit.getByLabel("incident.created").uncheck();
      await edit.getByLabel(/^New signing secret/).fill(`${SECRET}-rotated`);
      await edit.getByRole("button", { name: "Save endpoint" }).click();
      await page.getByRole("form", { name: "Add webhook endpoint" }).waitFor();
      await waitUntil(
        async () =>
          /^alert\.fired, alert\.resolved$/.test((await row.locator("td").first().textContent()) ?? ""),
        "the edited events on the row",
      );
      const before = received.length;
      await row.getByRole("button", { name: "Send test" }).click();
      await waitUntil(() => received.length > before, "the second test");
      const rotated = received.at(-1);
      assert.ok(
        rotated && verifySignature(`${SECRET}-rotated`, rotated.body, rotated.signature),
        "the new secret",
      );
      await row.getByRole("button", { name: "Disable" }).click();
      await row.getByText("disabled").waitFor();
      await row.getByRole("button", { name: "Delete" }).click();
      await row.getByRole("button", { name: `Delete ${hookUrl}` }).click();
      await page.getByText("No webhook endpoints yet.").waitFor();
    });

    test("a console without the webhook key says what to configure", async () => {
      const page = await open(keyless, "/settings?tab=webhooks");
      const form = page.getByRole("form", { name: "Add webhook endpoint" });
      await form.getByLabel("URL").fill(hookUrl);
      await form.getByLabel(/^Signing secret/).fill(SECRET);
      await form.getByRole("button", { name: "Add endpoint" }).click();
      await form.getByTestId("webhook-no-key").waitFor();
      assert.match(
        (await form.getByTestId("webhook-no-key").textContent()) ?? "",
        /no webhook encryption key.*console\.webhooks\.existingSecret/,
      );
    });

    test("a viewer sees rules and windows without write actions and no Webhooks tab; the Time Machine hides writes", async () => {
      // a rule and a window to look at, made by the admin console over the same database
      const page = await open(admin, "/alerts");
      const form = page.getByRole("form", { name: "New rule" });
      await form.getByLabel("Name", { exact: true }).fill("Seen by viewers");
      await form.getByLabel(/^Expression/).fill("vector(0) > 1");
      await form.getByRole("button", { name: "Create rule" }).click();
      await page.locator('[data-testid="rule-row"][data-rule="Seen by viewers"]').waitFor();
      const past = new Date(Date.now() - 3_600_000).toISOString();
      await page.goto(`${admin.httpUrl}/alerts?at=${encodeURIComponent(past)}`);
      await page.locator('[data-testid="rule-row"][data-rule="Seen by viewers"]').waitFor();
      assert.equal(
        await page.getByRole("form", { name: "New rule" }).count(),
        0,
        "no editor under the Time Machine",
      );
      assert.equal(await page.getByRole("button", { name: "Edit" }).count(), 0);
      await page.goto(`${admin.httpUrl}/maintenance?at=${encodeURIComponent(past)}`);
      await page.getByRole("heading", { name: "Maintenance" }).waitFor();
      assert.equal(await page.getByRole("form", { name: "New maintenance window" }).count(), 0);
      await page.goto(`${admin.httpUrl}/settings?tab=webhooks&at=${encodeURIComponent(past)}`);
      await page.getByText("Endpoints cannot be changed under the Time Machine.").waitFor();

      const v = await open(viewer, "/alerts");
      await v.locator('[data-testid="rule-row"][data-rule="Seen by viewers"]').waitFor();
      assert.equal(await v.getByRole("form", { name: "New rule" }).count(), 0);
      assert.equal(await v.getByRole("button", { name: "Delete" }).count(), 0);
      await v.goto(`${viewer.httpUrl}/maintenance`);
      await v.getByText("No maintenance windows.").waitFor();
      assert.equal(await v.getByRole("form", { name: "New maintenance window" }).count(), 0);
      await v.goto(`${viewer.httpUrl}/settings`);
      await v.getByRole("heading", { name: "Settings" }).waitFor();
      assert.equal(await v.getByRole("link", { name: "Webhooks" }).count(), 0);
    });
  },
);
