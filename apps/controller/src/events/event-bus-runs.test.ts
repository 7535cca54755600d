/**
 * A new leader's event stream (issue 33): its sequence numbers start beyond any an earlier leader issued, and a
 * subscriber resuming with a cursor this run did not issue learns of a possible loss (`missed`) and gets what this
 * run published so far.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventMessage } from "@svc/protocol";
import { EventBus } from "./event-bus.ts";

function sink(): { got: EventMessage[]; write(e: EventMessage): boolean; onceDrain(): void; end(): void } {
  const got: EventMessage[] = [];
  return { got, write: (e) => got.push(e) > 0, onceDrain: () => {}, end: () => {} };
}

const changed = (scope: string) =>
  ({ type: "TopologyChanged", severity: "info", scope, payload: {} }) as const;

test("a cursor of an earlier leader: the ring replayed, the first event says events may be missing", () => {
  const old = new EventBus({ enabled: true });
  old.restart(1_000_000);
  for (const n of ["a", "b", "c"]) old.publish(changed(n));
  const cursor = old.lastSeq("topology");
  assert.equal(cursor, 1_000_003);

  const next = new EventBus({ enabled: true });
  next.restart(2_000_000);
  next.publish(changed("d"));
  const s = sink();
  next.subscribe(s, { topology: cursor });
  next.publish(changed("e"));
  assert.deepEqual(
    s.got.map((e) => [e.seq, e.missed, e.scope]),
    [
      [2_000_001, 1, "d"],
      [2_000_002, 0, "e"],
    ],
  );
  // a cursor of this run resumes exactly, nothing reported missing
  const same = sink();
  next.subscribe(same, { topology: 2_000_001 });
  assert.deepEqual(
    same.got.map((e) => [e.seq, e.missed]),
    [[2_000_002, 0]],
  );
});

test("a cursor ahead of this run (a restarted process), nothing published yet: the next event carries the loss", () => {
  const bus = new EventBus({ enabled: true });
  const s = sink();
  bus.subscribe(s, { topology: 40 });
  assert.equal(s.got.length, 0);
  bus.publish(changed("a"));
  bus.publish(changed("b"));
  assert.deepEqual(
    s.got.map((e) => [e.seq, e.missed]),
    [
      [1, 1],
      [2, 0],
    ],
  );
});
