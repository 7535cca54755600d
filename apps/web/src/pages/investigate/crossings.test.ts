import assert from "node:assert/strict";
import { test } from "node:test";
import { crossings, median, type Series } from "./crossings.ts";

const T = 1_790_000_000; // unix seconds
const series = (signal: Series["signal"], values: number[]): Series => ({
  signal,
  name: signal === "loss" ? "udp packet loss" : "tcp connect time",
  query: "q",
  points: values.map((v, i) => [T + i * 15, v] as const),
});
const shape = (s: Series) => crossings(s).map((r) => [r.timestamp, r.severity, r.title]);
const iso = (i: number) => new Date((T + i * 15) * 1000).toISOString();

test("loss: above 1% is an error row at its first point, back to 1% an info row; exactly 1% is not above", () => {
  assert.deepEqual(shape(series("loss", [0, 0.01, 0.2, 0.5, 0.01, 0])), [
    [iso(2), "error", "udp packet loss above 1% (20%)"],
    [iso(4), "info", "udp packet loss back to 1% or under (1.0%)"],
  ]);
});

test("loss already above at the window start crosses at the first point", () => {
  assert.deepEqual(shape(series("loss", [1, 1]))[0]?.[0], iso(0));
});

test("NaN points (0/0 of a pair with no probes, gaps) change nothing", () => {
  assert.deepEqual(
    shape(series("loss", [0, Number.NaN, 0.3, Number.NaN, 0.3])).map((r) => r[0]),
    [iso(2)],
  );
});

test("rtt: above twice the window median is a warn row", () => {
  // median of [5,5,5,5,12,5] ms = 5 ms: 12 ms is above 10 ms
  const rows = shape(series("rtt", [0.005, 0.005, 0.005, 0.005, 0.012, 0.005]));
  assert.deepEqual(
    rows.map((r) => [r[0], r[1]]),
    [
      [iso(4), "warn"],
      [iso(5), "info"],
    ],
  );
  assert.match(String(rows[0]?.[2]), /12\.0 ms > 2 × 5\.00 ms/);
});

test("rtt: exactly twice the median is not above; an all-zero or empty series has no crossings", () => {
  assert.deepEqual(shape(series("rtt", [0.005, 0.005, 0.01])), []);
  assert.deepEqual(shape(series("rtt", [0, 0, 0])), []);
  assert.deepEqual(shape(series("rtt", [])), []);
});

test("median: odd and even counts, non-finite values left out", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([Number.NaN, 7]), 7);
  assert.equal(median([]), null);
});
