import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { median, parseMtrReport, parsePing, parseTracepath } from "./reference-tools.ts";

const fixture = (name: string) => readFileSync(new URL(`testdata/${name}`, import.meta.url), "utf8");

test("ping: per-reply times and loss from the counts", () => {
  const p = parsePing(fixture("ping-loss.txt"));
  assert.equal(p.transmitted, 6);
  assert.equal(p.received, 5);
  assert.ok(Math.abs(p.lossRatio - 1 / 6) < 1e-9);
  assert.deepEqual(p.rttsMs, [0.042, 0.043, 0.047, 0.043, 0.048]);
  assert.deepEqual(parsePing(fixture("ping-v6.txt")).rttsMs, [0.061, 0.064, 0.05]);
  assert.throws(() => parsePing("ping: unknown host"), /no ping statistics/);
});

test("tracepath: last answer per hop wins, silent hops are empty, pmtu from Resume", () => {
  const t = parseTracepath(fixture("tracepath-silent.txt"));
  assert.deepEqual(t.hops, [
    { number: 1, ip: "" },
    { number: 2, ip: "198.19.1.2" },
    { number: 3, ip: "198.19.2.2" },
    { number: 4, ip: "198.19.3.2" },
  ]);
  assert.equal(t.pmtu, 1400);
  assert.equal(t.reached, true);
});

test("mtr --report: hops, loss ratios and ??? as a silent hop", () => {
  const v4 = parseMtrReport(fixture("mtr-report-silent.txt"));
  assert.deepEqual(
    v4.map((h) => [h.number, h.ip, h.lossRatio, h.sent]),
    [
      [1, "198.19.0.2", 0, 5],
      [2, "", 1, 5],
      [3, "198.19.2.2", 0, 5],
      [4, "198.19.3.2", 0, 5],
    ],
  );
  assert.equal(parseMtrReport(fixture("mtr-report-v6.txt"))[0]?.ip, "fd00:198:18::100:0:2");
});

test("median of odd and even lists", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});
