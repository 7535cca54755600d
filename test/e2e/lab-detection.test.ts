// Detection speed in a lab (issue 20): 3 agents in network namespaces probing every 2 s, Prometheus scraping every
// 5 s with the console's recording rules, the console fed by the controller. After a healthy spell, a total tcp
// outage on node-1 -> node-2 is failing in the pair API and red in a Matrix page left open within 20 s, and after
// the heal leaves failing within 20 s in both (bench/detection measures the same after 3 healthy minutes); an MTU
// black hole toward node-2 is a red Black hole cell naming the size that crosses, and Recovering after the heal.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { recordingRulesYaml } from "@svc/console/recording-rules";
import type { FleetPair } from "@svc/contract";
import { Lab } from "@svc/lab";
import type { Browser } from "playwright-core";
import { needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";
import { cellTier, labConsoleCookie, labMatrixPage, msUntil, pairTier } from "../helpers/lab-tiers.ts";
import { browserMissing, ensureWebBuilt, launchChromium } from "./web-harness.ts";

const opts = skipUnless(needsRoot(), needsBinary("/usr/bin/prometheus"), browserMissing());
const LIMIT_MS = 20_000;

describe("lab: a tcp outage is red within 20 s and leaves red within 20 s", opts, () => {
  let lab: Lab;
  let browser: Browser;
  before(async () => {
    ensureWebBuilt();
    lab = new Lab({
      removeDirOnStop: true,
      agents: 3,
      netns: true,
      scrapeIntervalSeconds: 5,
      prometheusRules: [{ name: "svc-recording-rules.yml", yaml: recordingRulesYaml("svc", 5, 15, false) }],
      config: {
        checkers: { tcp: { interval: "2s", timeout: "1s" }, pmtu: { interval: "5s", timeout: "150ms" } },
      },
    });
    await lab.start();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await lab?.stop();
  });

  test("drop node-1 -> node-2 tcp, then heal", async () => {
    const cookie = await labConsoleCookie(lab);
    const page = await labMatrixPage(lab, browser, "tcp");
    const api = () => pairTier(lab, cookie, "node-1", "node-2", "tcp");
    const cell = () => cellTier(page, "node-1", "node-2");
    // healthy first: both result series exist and the 5-minute window holds only successes
    const healthy = await msUntil(api, (t) => t === "healthy", 90_000);
    assert.ok(Number.isFinite(healthy), "node-1 -> node-2 never read healthy");
    // a precondition, not the measure: the page's matrix is a snapshot that a slow or failed refresh on a loaded
    // machine keeps for a while (one double run saw it not healthy 30 s after the API), so it gets the API's 90 s
    let seen: string | undefined;
    const cellHealthy = await msUntil(
      async () => {
        const t = await cell();
        seen = t;
        return t;
      },
      (t) => t === "healthy",
      90_000,
    );
    assert.ok(Number.isFinite(cellHealthy), `the cell never painted healthy (last: ${seen ?? "not drawn"})`);
    await new Promise((r) => setTimeout(r, 20_000));
    await lab.fault({ kind: "drop", from: "node-1", to: "node-2", protocol: "tcp" });
    const [apiRed, pageRed] = await Promise.all([
      msUntil(api, (t) => t === "failing", LIMIT_MS + 10_000),
      msUntil(cell, (t) => t === "failing", LIMIT_MS + 10_000),
    ]);
    await lab.heal();
    const [apiOut, pageOut] = await Promise.all([
      msUntil(api, (t) => t !== "failing", LIMIT_MS + 10_000),
      msUntil(cell, (t) => t !== "failing", LIMIT_MS + 10_000),
    ]);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const figures = `red: API ${s(apiRed)}, page ${s(pageRed)}; out: API ${s(apiOut)}, page ${s(pageOut)}`;
    assert.ok(apiRed <= LIMIT_MS, figures);
    assert.ok(pageRed <= LIMIT_MS, figures);
    assert.ok(apiOut <= LIMIT_MS, figures);
    assert.ok(pageOut <= LIMIT_MS, figures);
    // the reverse direction was never touched
    assert.equal(await pairTier(lab, cookie, "node-2", "node-1", "tcp"), "healthy", figures);
    await page.context().close();
  });

  test("mtu node-2 1400: node-1 -> node-2 PMTU is Black hole naming the size that crosses, then Recovering", async () => {
    const cookie = await labConsoleCookie(lab);
    const pmtu = async () => {
      const res = await fetch(`${lab.consoleUrl}/api/v1/fleet/pairs/node-1/node-2?window=15m`, {
        headers: { cookie },
      });
      return res.status === 200 ? ((await res.json()) as FleetPair).protocols.pmtu : undefined;
    };
    assert.ok(
      Number.isFinite(
        await msUntil(
          async () => (await pmtu())?.tier,
          (t) => t === "healthy",
          60_000,
        ),
      ),
      "PMTU never read Full size",
    );
    await lab.fault({ kind: "mtu", node: "node-2", bytes: 1400 });
    try {
      // frames over 1400 to node-2 vanish with no ICMP: the next round reads a black hole and searches
      const red = await msUntil(
        async () => (await pmtu())?.tier,
        (t) => t === "failing",
        45_000,
      );
      const cell = await pmtu();
      assert.ok(Number.isFinite(red), `never Black hole: ${JSON.stringify(cell)}`);
      assert.equal(cell?.pmtu?.badge, "Black hole");
      assert.equal(cell?.pmtu?.probeBytes, 1500);
      // what crosses: a veth delivers frames up to its MTU plus a VLAN header's slack (dev_forward_skb), so an
      // eth0 at 1400 passes IP packets of up to 1404 bytes, and the search reports what really crosses
      const bytes = cell?.pmtu?.bytes ?? 0;
      assert.ok(bytes >= 1400 && bytes <= 1404, `bytes ${bytes}: the size that crosses an MTU-1400 veth`);
    } finally {
      await lab.heal();
    }
    const out = await msUntil(
      async () => (await pmtu())?.tier,
      (t) => t !== "failing",
      45_000,
    );
    assert.ok(Number.isFinite(out), "still Black hole after the heal");
    assert.equal((await pmtu())?.pmtu?.badge, "Recovering", "a black hole within 15 minutes: Recovering");
  });
});
