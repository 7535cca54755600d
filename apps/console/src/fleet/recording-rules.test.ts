/**
 * The recording rules: valid for promtool, the committed deploy file is what the code generates, and over the
 * fleet fixture a matrix read from the recorded series equals the one read from raw series, for every protocol;
 * FleetService switches to them when the marker series is there.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FleetProtocol } from "@svc/contract";
import type { TopologySnapshot } from "@svc/protocol";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import { fleetFigures } from "./figures.ts";
import { expectedPairs, fleetView } from "./fleet-view.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { markerName, rawReads, recordedReads, recordingRulesYaml } from "./recording-rules.ts";
import { RulesDetector } from "./rules-detector.ts";
import { type FleetFixture, startFleetFixture } from "./testdata/fleet-fixture.ts";
import { verdictOf } from "./tiers.ts";

const PROM = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const root = new URL("../../../../", import.meta.url);

test("deploy/prometheus/svc-recording-rules.yml is what the code generates (npm run gen:rules)", () => {
  const committed = readFileSync(new URL("deploy/prometheus/svc-recording-rules.yml", root), "utf8");
  assert.ok(committed === recordingRulesYaml(), "drifted: run npm run gen:rules and commit it");
  const state = readFileSync(new URL("deploy/prometheus/svc-recording-rules-state.yml", root), "utf8");
  assert.ok(
    state === recordingRulesYaml("svc", 5, 15, false),
    "drifted: run npm run gen:rules and commit it",
  );
  assert.doesNotMatch(state, /fleet-now/);
});

test(
  "promtool accepts the rules, with another prefix and intervals too",
  skipUnless(needsBinary(PROMTOOL)),
  () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-rules-"));
    try {
      for (const [name, yaml] of [
        ["default.yml", recordingRulesYaml()],
        ["acme.yml", recordingRulesYaml("acme_net", 10, 30)],
      ] as const) {
        const file = join(dir, name);
        writeFileSync(file, yaml);
        const r = spawnSync(PROMTOOL, ["check", "rules", file], { encoding: "utf8" });
        assert.equal(r.status, 0, r.stdout + r.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

describe("recorded reads over the fleet fixture", skipUnless(needsBinary(PROM)), () => {
  let fx: FleetFixture;
  let prom: PrometheusClient;
  before(async () => {
    fx = await startFleetFixture(PROM, recordingRulesYaml("svc", 1, 1));
    prom = new PrometheusClient({ url: fx.prometheusUrl, queryTimeoutMs: 10_000, maxResponseBytes: 1 << 24 });
    // the recorded series exist once the windows hold two samples of every counter
    await eventually(
      "recorded series",
      async () =>
        fx.exporter.scrapes() >= 6 && (await prom.query("svc:tcp_failing_now")).length > 0 ? true : undefined,
      30_000,
    );
  });
  after(async () => fx?.close());

  test("the marker is found; the raw and the recorded reads give the same verdicts per protocol", async () => {
    const detector = new RulesDetector("svc", Date.now);
    assert.equal(await detector.loaded(prom), true);
    assert.equal(await new RulesDetector("other", Date.now).loaded(prom), false);
    assert.equal((await prom.query(markerName("svc")))[0]?.metric.version, "1");
    const snap = (await (await fetch(`${fx.controllerUrl}/api/v1/topology`)).json()) as TopologySnapshot;
    const view = fleetView(snap);
    for (const p of ["tcp", "udp", "icmp", "pmtu"] as FleetProtocol[]) {
      const expected = expectedPairs(view, p);
      const [raw, rec] = await Promise.all([
        fleetFigures(prom, "svc", p, expected, rawReads("svc", p)),
        fleetFigures(prom, "svc", p, expected, recordedReads("svc", p)),
      ]);
      const verdicts = (m: typeof raw) =>
        Object.fromEntries(
          [...expected].flatMap(([s, ds]) =>
            ds.map((d) => [`${s}->${d}`, verdictOf(p, m.get(`${s}\n${d}`))]),
          ),
        );
      assert.deepEqual(verdicts(rec), verdicts(raw), p);
      assert.ok(
        Object.values(verdicts(raw)).some((v) => v.tier !== "healthy"),
        `${p}: the fixture has exceptions`,
      );
    }
  });
});

describe(
  "rules loaded without their now group (a fleet of agents exporting their pair state)",
  skipUnless(needsBinary(PROM)),
  () => {
    let fx: FleetFixture;
    let prom: PrometheusClient;
    before(async () => {
      fx = await startFleetFixture(PROM, recordingRulesYaml("svc", 1, 1, false));
      prom = new PrometheusClient({
        url: fx.prometheusUrl,
        queryTimeoutMs: 10_000,
        maxResponseBytes: 1 << 24,
      });
      await eventually(
        "the window group's series",
        async () =>
          fx.exporter.scrapes() >= 6 && (await prom.query("svc:tcp_fail_ratio_nonzero")).length > 0
            ? true
            : undefined,
        30_000,
      );
    });
    after(async () => fx?.close());

    test("the detector sees the window group only; the older agents' pairs still turn red from raw reads", async () => {
      assert.deepEqual(await new RulesDetector("svc", Date.now).groups(prom), { window: true, now: false });
      assert.deepEqual(await prom.query("svc:tcp_failing_now"), [], "no now group evaluated");
      const snap = (await (await fetch(`${fx.controllerUrl}/api/v1/topology`)).json()) as TopologySnapshot;
      const view = fleetView(snap);
      const expected = expectedPairs(view, "tcp");
      const map = await fleetFigures(prom, "svc", "tcp", expected, recordedReads("svc", "tcp", false));
      // the fixture's a -> b fails every probe, told by its counters (the fixture's agents export no state)
      assert.equal(map.get("a\nb")?.recent, "fail");
      assert.equal(verdictOf("tcp", map.get("a\nb")).tier, "failing");
    });
  },
);
