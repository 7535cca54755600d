import assert from "node:assert/strict";
import { test } from "node:test";
import { cellFigures, cellWord, defaultDirection, ms, parseProtocol, pct } from "./format.ts";

test("figures read as people write them", () => {
  assert.equal(pct(0), "0%");
  assert.equal(pct(0.005), "0.5%");
  assert.equal(pct(0.5), "50%");
  assert.equal(pct(undefined), "—");
  assert.equal(ms(0.00123), "1.23 ms");
  assert.equal(ms(0.25), "250 ms");
  assert.equal(parseProtocol("pmtu"), "pmtu");
  assert.equal(parseProtocol("bogus"), "tcp");
});

test("PMTU cells say their badge word; cells without a reading say no data / Not run / Not planned", () => {
  assert.equal(
    cellWord({ tier: "degraded", pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 } }),
    "Reduced",
  );
  assert.equal(cellWord({ tier: "nodata" }), "no data");
  assert.equal(cellWord({ tier: "notrun" }), "Not run");
  assert.equal(cellWord({ tier: "unplanned" }), "Not planned");
  assert.deepEqual(
    cellFigures(
      {
        source: "a",
        destination: "b",
        tier: "degraded",
        pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 },
      },
      "pmtu",
    ),
    ["a → b", "PMTU: Reduced", "Path MTU / probe: 1400 / 1500 bytes"],
  );
  assert.deepEqual(
    cellFigures(
      { source: "a", destination: "b", tier: "failing", failRatio: 1, rttP95Seconds: 0.002 },
      "udp",
    ),
    ["a → b", "UDP: Failing", "Fail ratio: 100%", "RTT p95: 2.00 ms"],
  );
});

test("the Node page opens on To peers unless inbound is strictly worse", () => {
  const row = (tier: "healthy" | "degraded" | "failing", failRatio = 0) => ({ peer: "x", tier, failRatio });
  assert.equal(defaultDirection([row("healthy")], [row("healthy")]), "to");
  assert.equal(defaultDirection([row("degraded", 0.1)], [row("degraded", 0.1)]), "to", "equal: To");
  assert.equal(defaultDirection([row("degraded", 0.1)], [row("failing", 0.6)]), "from");
  assert.equal(defaultDirection([row("degraded", 0.1)], [row("degraded", 0.2)]), "from");
  assert.equal(defaultDirection([row("failing", 1)], [row("degraded", 0.3)]), "to");
  assert.equal(defaultDirection([], []), "to");
});
