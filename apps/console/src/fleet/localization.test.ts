/** The localization's reading of matrix cells and of past instants (the e2e lab-faults test runs it whole). */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetMatrix, FleetProtocol } from "@svc/contract";
import { cellState, type FleetReads, Localization, leadIn, type MatrixState } from "./localization.ts";

const cell = (
  tier: "healthy" | "degraded" | "failing" | "nodata" | "notrun" | "unplanned",
  lossRatio?: number,
) => ({
  source: "a",
  destination: "b",
  tier,
  ...(lossRatio === undefined ? {} : { lossRatio }),
});

test("cells read as now: failing fails, loss in the latest run or mixed results are lossy, the window's leftovers are not", () => {
  const none = new Set<string>();
  assert.equal(cellState("tcp", cell("failing"), none), 1);
  assert.equal(cellState("udp", cell("degraded", 0.2), none), 2);
  assert.equal(cellState("tcp", cell("degraded"), none), 0, "degraded by the 5-minute window only");
  assert.equal(cellState("tcp", cell("degraded"), new Set(["a\nb"])), 2, "mixed latest results");
  assert.equal(cellState("pmtu", cell("degraded"), none), 0, "a reduced path MTU is not a failure");
  assert.equal(cellState("icmp", cell("nodata"), none), -1);
  assert.equal(cellState("icmp", cell("unplanned"), none), -1);
});

test("a past instant is read through the 20 s before it, every 5 s, not before a given floor", () => {
  assert.deepEqual(leadIn(100_000), [80_000, 85_000, 90_000, 95_000, 100_000]);
  assert.deepEqual(leadIn(100_000, 88_000), [90_000, 95_000, 100_000]);
});

test("a window ending now ends with the live answer: a node the console already judged is judged in the window too", async () => {
  const FAULT = 1_000_000; // epoch ms the cut-off of c began
  let clock = FAULT + 1000;
  const names = ["a", "b", "c", "d"];
  const nodes = names.map((name) => ({
    name,
    zone: "z",
    external: false,
    planes: ["tcp", "udp", "icmp", "pmtu"],
  }));
  const reads: FleetReads = {
    async matrixState(protocol: FleetProtocol, at?: number): Promise<MatrixState> {
      const t = at ?? clock;
      const cells = names.flatMap((s) =>
        names
          .filter((d) => d !== s)
          .map((d) => ({
            source: s,
            destination: d,
            tier:
              d === "c" && protocol !== "pmtu" && t >= FAULT ? ("failing" as const) : ("healthy" as const),
          })),
      );
      const matrix: FleetMatrix = {
        protocol,
        generatedAt: new Date(t).toISOString(),
        sparse: false,
        nodes,
        cells,
      };
      return { matrix, mixed: new Set() };
    },
    // every node reports every 5 s, at FAULT - 3 s + 5 k s
    async reportedAt(asked: readonly string[], at?: number) {
      const t = at ?? clock;
      const last = FAULT - 3000 + Math.floor((t - (FAULT - 3000)) / 5000) * 5000;
      return { now: t / 1000, at: new Map(asked.map((n) => [n, last / 1000])) };
    },
  };
  const loc = new Localization(reads, () => clock);
  const live = async () => {
    await loc.current(); // a stale answer is served while the refresh runs
    await new Promise((r) => setImmediate(r));
    return loc.current();
  };
  // first seen failing at FAULT + 1 s, before c's next report: not known yet
  assert.equal((await live()).suspects[0]?.id, "node:c:unreachable");
  // c reported at FAULT + 2 s: cut off inbound
  clock = FAULT + 3000;
  assert.equal((await live()).suspects[0]?.id, "node:c:inbound");
  // the window's own instants would first see the column at its end, after c's last report
  const w = await loc.window(clock - 10 * 60_000, clock);
  assert.deepEqual(
    w.suspects.filter((s) => s.role === "suspect").map((s) => s.id),
    ["node:c:inbound"],
  );
  assert.equal(w.instants?.at(-1), new Date(clock).toISOString());
  // a window ending in the past is read from its own instants (leadIn): c not judged yet then
  clock += 60_000;
  const past = await loc.window(FAULT + 3000 - 10 * 60_000, FAULT + 3000);
  assert.deepEqual(
    past.suspects.filter((s) => s.role === "suspect").map((s) => s.id),
    ["node:c:unreachable"],
  );
});
