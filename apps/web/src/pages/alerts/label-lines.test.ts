import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLines, MAX_LINES, parseLines } from "./label-lines.ts";

test("name=value lines: parsed, blank lines skipped, values keep '=' and spaces inside", () => {
  assert.deepEqual(parseLines("severity=warning\n\n summary = a = b \n", "labels"), {
    ok: true,
    map: { severity: "warning", summary: "a = b" },
  });
  assert.deepEqual(parseLines("", "labels"), { ok: true, map: {} });
});

test("bad lines name the line; a repeated name is refused; the line count is bounded", () => {
  assert.deepEqual(parseLines("a=1\nnovalue", "labels"), {
    ok: false,
    error: "labels, line 2: write name=value",
  });
  assert.deepEqual(parseLines("=x", "annotations"), {
    ok: false,
    error: "annotations, line 1: write name=value",
  });
  assert.deepEqual(parseLines("a=1\na=2", "labels"), { ok: false, error: "labels, line 2: a given twice" });
  const many = Array.from({ length: MAX_LINES + 1 }, (_, i) => `k${i}=v`).join("\n");
  assert.equal(parseLines(many, "labels").ok, false);
});

test("formatLines is parseLines' inverse, in key order", () => {
  const map = { team: "net", severity: "page" };
  assert.equal(formatLines(map), "severity=page\nteam=net");
  assert.deepEqual(parseLines(formatLines(map), "labels"), { ok: true, map });
});
