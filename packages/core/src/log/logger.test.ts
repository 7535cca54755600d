import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger, type LogSink } from "./logger.ts";
import { formatTextLine } from "./text.ts";

function capture(): LogSink & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (chunk: string) => lines.push(...chunk.split("\n").filter((l) => l !== "")) };
}

test("json format writes one pino JSON object per record with label levels", () => {
  const sink = capture();
  const log = createLogger({ level: "info", format: "json", name: "agent", sink });
  log.debug("hidden");
  log.info({ peer: "n1" }, "probe ok");
  log.warn("plain message");
  assert.equal(sink.lines.length, 2);
  const rec = JSON.parse(sink.lines[0] ?? "") as Record<string, unknown>;
  assert.equal(rec.level, "info");
  assert.equal(rec.msg, "probe ok");
  assert.equal(rec.peer, "n1");
  assert.equal(rec.name, "agent");
  assert.match(String(rec.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test("text format writes one readable line per record", () => {
  const sink = capture();
  const log = createLogger({ level: "debug", format: "text", sink });
  log.info({ peer: "n1", rtt: 1.5, note: "a b", ok: true }, "probe ok");
  log.error({ err: new Error("boom\nsecond line") }, "multi\nline");
  assert.equal(sink.lines.length, 2);
  assert.match(
    sink.lines[0] ?? "",
    /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}probe ok peer=n1 rtt=1\.5 note="a b" ok=true$/,
  );
  assert.match(sink.lines[1] ?? "", /^\S+ ERROR multi\\nline err="boom\\nsecond line"$/);
});

test("formatTextLine pads the level and renders nested values as JSON", () => {
  const line = formatTextLine(
    '{"level":"warn","time":"2026-11-23T10:00:00.000Z","msg":"m","keys":["a","b"]}',
  );
  assert.equal(line, '2026-11-23T10:00:00.000Z WARN  m keys=["a","b"]\n');
});

test("setLevel changes the level of the logger and of its existing children", () => {
  const sink = capture();
  const log = createLogger({ level: "info", format: "json", sink });
  const child = log.child({ component: "probe" });
  child.debug("before");
  log.setLevel("debug");
  child.debug("after");
  assert.equal(child.level, "debug");
  child.setLevel("error");
  log.warn("suppressed");
  assert.equal(log.level, "error");
  assert.equal(sink.lines.length, 1);
  const rec = JSON.parse(sink.lines[0] ?? "") as Record<string, unknown>;
  assert.deepEqual([rec.msg, rec.component, rec.level], ["after", "probe", "debug"]);
});
