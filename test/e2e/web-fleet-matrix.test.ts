// The Matrix page in Chromium against a real console whose fleet API answers come from test fixtures
// (web-fleet-stub.ts): the DOM grid (tiers, PMTU badge words, Not run, unplanned pairs, hover figures, keyboard
// to a pair) and the 200-node canvas (hit-tested hover and click, the keyboard node picker).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { TIER_COLOR } from "../../apps/web/src/components/fleet/format.ts";
import { skipUnless } from "../helpers/env.ts";
import { syntheticMatrix } from "./testdata/fleet-fixtures.ts";
import { stubFleet } from "./web-fleet-stub.ts";
import { browserMissing, screenshot, webSuite } from "./web-harness.ts";

describe("console web app: the Matrix page", skipUnless(browserMissing()), () => {
  const web = webSuite("auth:\n  mode: anonymous\n");

  async function open(path: string): Promise<Page> {
    const ctx = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    await stubFleet(page, "ok");
    await page.goto(`${web.server.httpUrl}${path}`);
    return page;
  }
  const tiers = (page: Page) =>
    page.$$eval("a[data-tier]", (els) =>
      els.map(
        (e) =>
          `${e.getAttribute("data-source")}>${e.getAttribute("data-destination")}=${e.getAttribute("data-tier")}`,
      ),
    );

  test("UDP: exactly the failing pair is failing, agents without the plane are Not run, hover shows figures", async () => {
    const page = await open("/matrix?protocol=udp");
    await page.getByTestId("matrix-grid").waitFor();
    const all = await tiers(page);
    assert.equal(all.length, 12, "one cell per ordered pair of 4 nodes");
    assert.deepEqual(
      all.filter((c) => c.endsWith("=failing")),
      ["node-1>node-2=failing"],
    );
    assert.deepEqual(all.filter((c) => c.endsWith("=notrun")).sort(), [
      "ext-1>node-1=notrun",
      "ext-1>node-2=notrun",
      "ext-1>node-3=notrun",
    ]);
    assert.equal(await page.locator('a[data-tier="notrun"]').first().innerText(), "Not run");
    await page.locator('a[data-source="node-1"][data-destination="node-2"]').hover();
    const details = await page.getByTestId("cell-details").innerText();
    assert.match(details, /node-1 → node-2 · UDP: Failing · Fail ratio: 100% · Packet loss: 100%/);
    assert.equal(await page.getByRole("button", { name: "UDP" }).getAttribute("aria-pressed"), "true");
    await screenshot(page, "fleet-matrix-udp");
    await page.context().close();
  });

  test("PMTU cells show badge words; TCP under a sparse plan shows the unplanned pair", async () => {
    const page = await open("/matrix?protocol=udp");
    await page.getByTestId("matrix-grid").waitFor();
    await page.getByRole("button", { name: "PMTU" }).click();
    await page.waitForURL(/protocol=pmtu/);
    const reduced = page.locator('a[data-source="node-1"][data-destination="node-2"]');
    await reduced.filter({ hasText: "Reduced" }).waitFor();
    assert.equal(
      await page.locator('a[data-source="node-2"][data-destination="node-1"]').innerText(),
      "Full size",
    );
    assert.equal(
      await page.locator('a[data-source="node-1"][data-destination="ext-1"]').innerText(),
      "no data",
    );
    assert.match((await reduced.getAttribute("aria-label")) ?? "", /Path MTU \/ probe: 1400 \/ 1500 bytes/);
    await screenshot(page, "fleet-matrix-pmtu");
    await page.getByRole("button", { name: "TCP" }).click();
    await page.getByTestId("sparse-note").waitFor();
    const unplanned = page.locator('a[data-source="node-3"][data-destination="ext-1"]');
    assert.equal(await unplanned.getAttribute("data-tier"), "unplanned");
    assert.equal(await unplanned.innerText(), "Not planned");
    await page.context().close();
  });

  test("keyboard: Tab reaches the cells and Enter opens that pair", async () => {
    const page = await open("/matrix?protocol=udp");
    await page.getByTestId("matrix-grid").waitFor();
    await page.getByRole("button", { name: "PMTU" }).focus();
    let focused = "";
    for (let i = 0; i < 20 && focused === ""; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate("document.activeElement?.getAttribute('data-destination') ?? ''");
    }
    assert.notEqual(focused, "", "a cell took the focus");
    assert.match(await page.getByTestId("cell-details").innerText(), / → /, "focus shows the figures");
    await page.locator('a[data-source="node-1"][data-destination="node-2"]').focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "node-1 → node-2" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/pairs/node-1/node-2");
    await page.context().close();
  });

  test("200 nodes draw on a canvas: hover names the pair under the pointer, click opens it", async () => {
    const page = await open("/matrix?protocol=icmp");
    const canvas = page.getByTestId("matrix-canvas");
    await canvas.waitFor();
    assert.equal(await canvas.getAttribute("data-nodes"), "200");
    assert.equal(await page.getByTestId("matrix-grid").count(), 0, "no DOM grid at 200 nodes");
    const box = await canvas.boundingBox();
    assert.ok(box);
    const cell = box.width / 200; // no labels at this size
    // rows and columns read by zone: zone-a holds node-001, node-005, node-009, ... (every 4th)
    const at = { x: box.x + 9.5 * cell, y: box.y + 4.5 * cell }; // row 4 = node-017, column 9 = node-037
    await page.mouse.move(at.x, at.y);
    assert.match(await page.getByTestId("matrix-tip").innerText(), /node-017 → node-037/);
    // the pixels: that cell in its tier's colour, the diagonal left clear
    type Canvas2d = {
      width: number;
      getBoundingClientRect(): { width: number };
      getContext(
        kind: "2d",
      ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
    };
    const pixel = (col: number, row: number) =>
      canvas.evaluate(
        (node, at) => {
          const el = node as unknown as Canvas2d;
          const css = el.getBoundingClientRect().width;
          const scale = el.width / css;
          const side = css / 200;
          const x = (at.col + 0.5) * side * scale;
          const y = (at.row + 0.5) * side * scale;
          const d = el.getContext("2d")?.getImageData(x, y, 1, 1).data;
          return d ? Array.from(d) : [];
        },
        { col, row },
      );
    const want = syntheticMatrix(200, "icmp").cells.find(
      (c) => c.source === "node-017" && c.destination === "node-037",
    )?.tier;
    assert.ok(want);
    const hex = TIER_COLOR[want];
    assert.deepEqual(
      await pixel(9, 4),
      [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).concat(255),
      `node-017 → node-037 drawn in the ${want} colour`,
    );
    assert.equal((await pixel(4, 4))[3], 0, "the diagonal is not drawn");
    await screenshot(page, "fleet-matrix-200-nodes");
    await page.mouse.click(at.x, at.y);
    await page.getByRole("heading", { level: 1, name: "node-017 → node-037" }).waitFor();
    await page.context().close();
  });

  test("200 nodes: the node picker leads to a node page and to a pair page by keyboard", async () => {
    const page = await open("/matrix?protocol=icmp");
    const picker = page.getByRole("form", { name: "Node picker" });
    await picker.waitFor();
    await page.getByLabel("Node", { exact: true }).selectOption("node-007");
    await page.getByRole("button", { name: "Open node" }).press("Enter");
    await page.getByRole("heading", { level: 1, name: "Node node-007" }).waitFor();
    assert.equal(
      new URL(page.url()).searchParams.get("protocol"),
      "icmp",
      "protocol carried to the Node page",
    );
    await page.goBack();
    await page.getByLabel("Node", { exact: true }).selectOption("node-002");
    await page.getByLabel("Peer").selectOption("node-150");
    await page.getByRole("button", { name: "Open pair" }).press("Enter");
    await page.getByRole("heading", { level: 1, name: "node-002 → node-150" }).waitFor();
    await page.context().close();
  });
});
