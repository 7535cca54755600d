// The Node, Pair, Overview and Topology pages in Chromium against a real console (anonymous operator) whose fleet
// API answers come from test fixtures (web-fleet-stub.ts), and the degraded states: 503 metrics_unconfigured and
// 502 controller unreachable named as such, an unknown node's named 404 card, Run check hidden from a viewer.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { skipUnless } from "../helpers/env.ts";
import { stubFleet } from "./web-fleet-stub.ts";
import { browserMissing, screenshot, webSuite } from "./web-harness.ts";

describe("console web app: Node, Pair, Overview and Topology pages", skipUnless(browserMissing()), () => {
  const web = webSuite("auth:\n  mode: anonymous\n  anonymous:\n    role: operator\n");

  async function open(
    path: string,
    mode: "ok" | "degraded" = "ok",
  ): Promise<{ page: Page; checks: unknown[] }> {
    const ctx = await web.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    const checks = await stubFleet(page, mode);
    await page.goto(`${web.server.httpUrl}${path}`);
    return { page, checks };
  }
  const headers = (page: Page) => page.getByTestId("peer-table").locator("thead th").allInnerTexts();

  test("Node page: tier, health with the scored note, From peers first when inbound is worse", async () => {
    const { page } = await open("/nodes/node-1?protocol=udp");
    await page.getByRole("heading", { level: 1, name: "Node node-1" }).waitFor();
    await page.getByTestId("peer-table").waitFor();
    assert.equal(await page.getByTestId("node-tier").innerText(), "Failing");
    assert.equal(await page.getByTestId("node-health").innerText(), "0.0% (2 of 3 pairs scored)");
    assert.equal(await page.getByRole("tab", { name: "From peers" }).getAttribute("aria-selected"), "true");
    assert.deepEqual(await headers(page), ["Peer", "Tier", "Fail ratio", "Packet loss", "RTT p95"]);
    await screenshot(page, "fleet-node");
    await page.getByRole("tab", { name: "To peers" }).click();
    assert.deepEqual(
      await headers(page),
      ["Peer", "Tier", "Fail ratio", "RTT p95"],
      "no loss measured outbound",
    );
    // the protocol switch writes the shared query key; PMTU swaps RTT for Path MTU / probe
    await page.getByRole("button", { name: "PMTU" }).click();
    await page.waitForURL(/protocol=pmtu/);
    await page.getByRole("tab", { name: "To peers" }).click();
    await page.getByText("1400 / 1500").waitFor();
    assert.deepEqual(await headers(page), ["Peer", "Tier", "Fail ratio", "Path MTU / probe"]);
    await page.getByRole("link", { name: "node-2" }).click();
    await page.getByRole("heading", { level: 1, name: "node-1 → node-2" }).waitFor();
    await page.context().close();
  });

  test("an unknown node gets the named 404 card", async () => {
    const { page } = await open("/nodes/ghost");
    await page.getByRole("heading", { name: "No node named ghost" }).waitFor();
    await screenshot(page, "fleet-node-unknown");
    await page.context().close();
  });

  test("Pair page: per-protocol health, RTT and loss charts, window, MTR path, Run check", async () => {
    const { page, checks } = await open("/pairs/node-1/node-2");
    await page.getByRole("heading", { level: 1, name: "node-1 → node-2" }).waitFor();
    const health = page.getByTestId("pair-health");
    await health.waitFor();
    assert.equal(await health.locator('tr[data-protocol="udp"] .tier-badge').innerText(), "Failing");
    assert.equal(await health.locator('tr[data-protocol="pmtu"] .tier-badge').innerText(), "Reduced");
    assert.equal(await page.locator(".uplot").count(), 2, "an RTT chart and a loss chart");
    assert.deepEqual(await page.getByTestId("mtr-hops").locator("tbody td:nth-child(2)").allInnerTexts(), [
      "198.18.1.1",
      "198.18.1.3",
    ]);
    await page.getByLabel("Window").selectOption("6h");
    await page.waitForURL(/window=6h/);
    await page.getByRole("button", { name: "Run check" }).click();
    await page.getByTestId("check-result").getByText("Succeeded").waitFor();
    assert.match(await page.getByTestId("check-result").innerText(), /TCP node-1 → node-2 in 1\.25 ms/);
    assert.deepEqual(checks, [{ source: "node-1", destination: "node-2", type: "tcp" }]);
    await screenshot(page, "fleet-pair");
    await page.context().close();
  });

  test("Run check is not offered without runs:create", async () => {
    const ctx = await web.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    await stubFleet(page, "ok");
    await page.route("**/api/v1/auth/me", async (route) => {
      const real = await route.fetch();
      const me = (await real.json()) as { roles: string[]; permissions: string[] };
      const viewer = {
        ...me,
        roles: ["viewer"],
        permissions: me.permissions.filter((p) => p !== "runs:create"),
      };
      await route.fulfill({ response: real, json: viewer });
    });
    await page.goto(`${web.server.httpUrl}/pairs/node-1/node-2`);
    await page.getByTestId("pair-health").waitFor();
    assert.equal(await page.getByRole("button", { name: "Run check" }).count(), 0);
    await ctx.close();
  });

  test("Overview: fleet summary and worst pairs linking to their Pair page", async () => {
    const { page } = await open("/");
    const summary = page.getByTestId("fleet-summary");
    await summary.waitFor();
    assert.match(await summary.innerText(), /Agents\s+4\s+Missing agents\s+1/);
    assert.equal(
      await page
        .locator('tr[data-protocol="udp"] td')
        .allInnerTexts()
        .then((t) => t.join("|")),
      "9|1",
    );
    // a PMTU black hole names its badge, the size that crossed and the size probed (not "—")
    const hole = page.getByTestId("worst-pairs").locator("tr").filter({ hasText: "node-2 → node-3" });
    assert.match(await hole.innerText(), /PMTU\s+Black hole/);
    assert.equal(await hole.getByTestId("worst-pmtu").innerText(), "576 / 1500 bytes");
    assert.equal(
      await page
        .getByTestId("worst-pairs")
        .locator("tr")
        .filter({ hasText: "node-1 → node-2" })
        .getByTestId("worst-pmtu")
        .innerText(),
      "—",
      "a UDP row has no PMTU figures",
    );
    await screenshot(page, "fleet-overview");
    await page.getByTestId("worst-pairs").getByRole("link", { name: "node-1 → node-2" }).click();
    await page.getByRole("heading", { level: 1, name: "node-1 → node-2" }).waitFor();
    await page.context().close();
  });

  test("Topology: zones, external agents apart, readiness, failing link coloured", async () => {
    const { page } = await open("/topology");
    await page.getByTestId("topology-svg").waitFor();
    assert.deepEqual(await page.locator(".zone-list h2").allInnerTexts(), [
      "zone-a",
      "zone-b",
      "external agents",
    ]);
    assert.equal(await page.locator('[data-node="node-3"]').getAttribute("data-ready"), "false");
    assert.match(await page.locator('[data-zone="zone-a"]').innerText(), /node-3 not ready/);
    assert.equal(
      await page.locator('line[data-tier="failing"]').count(),
      1,
      "node-1 <-> node-2 drawn failing",
    );
    assert.equal(await page.locator('line[data-tier="degraded"]').count(), 1);
    // the drawing fills its canvas: the SVG spans its box, and the nodes and their labels spread over most of it
    const svg = await page.getByTestId("topology-svg").boundingBox();
    const frame = await page.locator(".topology-box").boundingBox();
    assert.ok(svg && frame && svg.width >= frame.width - 4, `svg ${svg?.width} of its box ${frame?.width}`);
    const nodes = await page.locator("[data-node]").evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
      }),
    );
    const spanX = Math.max(...nodes.map((n) => n[2] ?? 0)) - Math.min(...nodes.map((n) => n[0] ?? 0));
    const spanY = Math.max(...nodes.map((n) => n[3] ?? 0)) - Math.min(...nodes.map((n) => n[1] ?? 0));
    assert.ok(
      spanX >= 0.6 * (svg?.width ?? 0) || spanY >= 0.6 * (svg?.height ?? 0),
      `nodes span ${spanX}x${spanY} of a ${svg?.width}x${svg?.height} canvas`,
    );
    await screenshot(page, "fleet-topology");
    // Path MTU: links coloured by their PMTU badge (the worse direction), the reduced and black-holed ones labelled
    await page.getByRole("button", { name: "Path MTU" }).click();
    await page.locator('line[data-pmtu="Black hole"]').waitFor();
    assert.equal(await page.locator('line[data-pmtu="Black hole"]').getAttribute("data-tier"), "failing");
    assert.equal(await page.locator('line[data-pmtu="Reduced"]').getAttribute("data-tier"), "degraded");
    assert.equal(await page.locator('line[data-pmtu="Full size"]').count(), 1, "node-1 <-> node-3");
    assert.deepEqual((await page.getByTestId("pmtu-edge-label").allTextContents()).sort(), [
      "Black hole 576 / 1500 B",
      "Reduced 1400 / 1500 B",
    ]);
    await screenshot(page, "fleet-topology-pmtu");
    await page.locator('[data-zone="external agents"]').getByRole("link", { name: "ext-1" }).click();
    await page.getByRole("heading", { level: 1, name: "Node ext-1" }).waitFor();
    await page.context().close();
  });

  test("degraded backends: metrics server not configured, controller unreachable", async () => {
    const { page } = await open("/matrix?protocol=udp", "degraded");
    const card = (title: string) => page.getByRole("alert").filter({ hasText: title });
    await card("Metrics server not configured").waitFor();
    await screenshot(page, "fleet-matrix-metrics-unconfigured");
    for (const path of ["/", "/nodes/node-1", "/pairs/node-1/node-2"]) {
      await page.goto(`${web.server.httpUrl}${path}`);
      await card("Metrics server not configured").waitFor();
    }
    await page.goto(`${web.server.httpUrl}/topology`);
    await card("Controller unreachable").waitFor();
    assert.match(await card("Controller unreachable").innerText(), /ECONNREFUSED/);
    await screenshot(page, "fleet-topology-controller-unreachable");
    await page.context().close();
  });
});
