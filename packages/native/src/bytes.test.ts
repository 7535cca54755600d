import assert from "node:assert/strict";
import { test } from "node:test";
import { putF64, putU16, putU32, u16, u32 } from "./bytes.ts";

test("big-endian fields read and write as Buffer's own methods do", () => {
  const values16 = [0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1234, 0x8000, 0xfffe, 0xffff];
  const values32 = [0, 1, 0xff, 0x10000, 0x53564355, 0x7fffffff, 0x80000000, 0xdeadbeef, 0xffffffff];
  const doubles = [0, -0, 1, -1.5, Math.PI, 1e300, -1e-300, 123456.789, Number.MAX_SAFE_INTEGER, Infinity];
  for (const at of [0, 3]) {
    for (const v of values16) {
      const ours = Buffer.alloc(8);
      const theirs = Buffer.alloc(8);
      putU16(ours, at, v);
      theirs.writeUInt16BE(v, at);
      assert.deepEqual(ours, theirs, `u16 ${v} at ${at}`);
      assert.equal(u16(theirs, at), theirs.readUInt16BE(at));
    }
    for (const v of values32) {
      const ours = Buffer.alloc(8);
      const theirs = Buffer.alloc(8);
      putU32(ours, at, v);
      theirs.writeUInt32BE(v, at);
      assert.deepEqual(ours, theirs, `u32 ${v} at ${at}`);
      assert.equal(u32(theirs, at), theirs.readUInt32BE(at));
    }
  }
  for (const v of doubles) {
    const ours = Buffer.alloc(12);
    const theirs = Buffer.alloc(12);
    putF64(ours, 2, v);
    theirs.writeDoubleBE(v, 2);
    assert.deepEqual(ours, theirs, `f64 ${v}`);
  }
});

test("reads past the end are 0 and writes past the end are dropped", () => {
  const b = Buffer.from([0xab]);
  assert.equal(u16(b, 0), 0xab00);
  assert.equal(u32(b, 0), 0xab000000);
  putU32(b, 0, 0x01020304);
  assert.deepEqual([...b], [0x01]);
});
