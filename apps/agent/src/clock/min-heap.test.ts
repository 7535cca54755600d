import assert from "node:assert/strict";
import { test } from "node:test";
import { lcg } from "../../../../test/helpers/seeded-random.ts";
import { MinHeap } from "./min-heap.ts";

test("pops items in key order through random pushes and pops, ties and fractional keys included", () => {
  const rand = lcg(7);
  const heap = new MinHeap<{ at: number; id: number }>((e) => e.at);
  const model: { at: number; id: number }[] = [];
  for (let step = 0; step < 20000; step++) {
    if (rand() < 0.55 || model.length === 0) {
      const e = { at: rand() < 0.2 ? Math.floor(rand() * 10) : rand() * 1e6 + 0.123, id: step };
      heap.push(e);
      model.push(e);
    } else {
      const got = heap.pop();
      const least = Math.min(...model.map((m) => m.at));
      assert.equal(got?.at, least);
      model.splice(model.indexOf(got as { at: number; id: number }), 1);
    }
    assert.equal(heap.size, model.length);
    assert.equal(heap.peek()?.at, model.length ? Math.min(...model.map((m) => m.at)) : undefined);
  }
  heap.clear();
  assert.equal(heap.size, 0);
  assert.equal(heap.pop(), undefined);
  assert.equal(heap.peek(), undefined);
});
