/**
 * MatrixPusher in virtual time: nothing is read while no socket holds `matrix`; the first subscriber takes the
 * baseline (no push); each period pushes, per protocol, only the cells whose tier or figures changed; a failing
 * read pushes nothing; the baseline is dropped when the last subscriber leaves.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetMatrix, FleetProtocol, MatrixCell, MatrixPush, WsServerMessage } from "@svc/contract";
import { silent } from "../log.ts";
import { type LiveClient, LiveHub } from "./hub.ts";
import { changedCells, MATRIX_PUSH_EVERY_MS, MatrixPusher } from "./matrix-pusher.ts";
import { ManualTicker } from "./ticker.ts";

class FakeClient implements LiveClient {
  bufferedAmount = 0;
  readonly got: WsServerMessage[] = [];
  send(frame: Buffer): void {
    this.got.push(JSON.parse(frame.toString()) as WsServerMessage);
  }
}

const cell = (
  source: string,
  destination: string,
  tier: MatrixCell["tier"],
  failRatio?: number,
): MatrixCell => ({
  source,
  destination,
  tier,
  ...(failRatio === undefined ? {} : { failRatio }),
});

class FakeFleet {
  reads = 0;
  fail = false;
  cells = new Map<FleetProtocol, MatrixCell[]>();
  async matrix(protocol: FleetProtocol): Promise<FleetMatrix> {
    this.reads++;
    if (this.fail) throw new Error("prometheus down");
    return {
      protocol,
      generatedAt: `2026-01-01T00:00:${String(this.reads).padStart(2, "0")}Z`,
      sparse: false,
      nodes: [],
      cells: this.cells.get(protocol) ?? [],
    };
  }
}

const flush = () => new Promise((r) => setImmediate(r));

test("changedCells: new cells and cells whose tier or figures changed", () => {
  const prev = new Map([
    ["a\u0000b", JSON.stringify(["healthy", undefined, undefined, undefined, undefined])],
    ["b\u0000a", JSON.stringify(["failing", 1, undefined, undefined, undefined])],
  ]);
  const next = [cell("a", "b", "healthy"), cell("b", "a", "failing", 0.5), cell("a", "c", "nodata")];
  assert.deepEqual(
    changedCells(prev, next).map((c) => `${c.source}>${c.destination}`),
    ["b>a", "a>c"],
  );
});

test("pushes only while held, only what changed, per protocol, every period", async () => {
  const hub = new LiveHub({ replicaId: "r1" });
  const fleet = new FakeFleet();
  const ticker = new ManualTicker();
  const pusher = new MatrixPusher({ hub, source: fleet, log: silent, every: ticker.every });
  pusher.start();
  fleet.cells.set("tcp", [cell("a", "b", "healthy"), cell("b", "a", "healthy")]);
  fleet.cells.set("udp", [cell("a", "b", "healthy")]);

  ticker.tick(MATRIX_PUSH_EVERY_MS * 3);
  await flush();
  assert.equal(fleet.reads, 0, "no subscriber: no read");

  const c = new FakeClient();
  hub.attach(c);
  hub.subscribe(c, { type: "subscribe", topic: "matrix" });
  await pusher.tick();
  assert.equal(fleet.reads, 4, "the first subscriber takes the baseline of each protocol");
  assert.deepEqual(
    c.got.map((m) => m.type),
    ["status", "subscribed"],
  );

  fleet.cells.set("tcp", [cell("a", "b", "failing", 1), cell("b", "a", "healthy")]);
  ticker.tick(MATRIX_PUSH_EVERY_MS - 1);
  await flush();
  assert.equal(fleet.reads, 4, "not before the period");
  ticker.tick(1);
  await pusher.tick();
  const pushes = c.got.filter((m) => m.type === "event");
  assert.equal(pushes.length, 1);
  const push = (pushes[0] as { data: MatrixPush }).data;
  assert.equal(push.protocol, "tcp");
  assert.deepEqual(push.cells, [cell("a", "b", "failing", 1)]);

  // unchanged: nothing; failing reads: nothing, baseline kept
  ticker.tick(MATRIX_PUSH_EVERY_MS);
  await pusher.tick();
  fleet.fail = true;
  ticker.tick(MATRIX_PUSH_EVERY_MS);
  await pusher.tick();
  fleet.fail = false;
  fleet.cells.set("udp", [cell("a", "b", "degraded")]);
  ticker.tick(MATRIX_PUSH_EVERY_MS);
  await pusher.tick();
  const later = c.got.filter((m) => m.type === "event").slice(1);
  assert.deepEqual(
    later.map((m) => (m as { data: MatrixPush }).data.protocol),
    ["udp"],
  );

  // the last subscriber leaves: no reads, and the next one starts from a fresh baseline
  hub.unsubscribe(c, "matrix");
  const before = fleet.reads;
  ticker.tick(MATRIX_PUSH_EVERY_MS * 2);
  await pusher.tick();
  assert.equal(fleet.reads, before);
  fleet.cells.set("udp", [cell("a", "b", "healthy")]);
  hub.subscribe(c, { type: "subscribe", topic: "matrix" });
  await pusher.tick();
  assert.equal(c.got.filter((m) => m.type === "event").length, 2, "a new baseline pushes nothing");
  pusher.stop();
  assert.equal(ticker.size, 0);
});
