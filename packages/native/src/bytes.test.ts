import assert from "node:assert/strict";
import { test } from "node:test";
import { putF64, putU16, putU32, u16, u32 } from "./bytes.ts";

test("big-endian fields read and write as Buffer's own methods do", () => {
  const widths = [
    {
      name: "u16",
      values: [0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1234, 0x8000, 0xfffe, 0xffff],
      put: putU16,
      get: u16,
      write: (b: Buffer, v: number, at: number) => b.writeUInt16BE(v, at),
      read: (b: Buffer, at: number) => b.readUInt16BE(at),
    },
    {
      name: "u32",
      values: [0, 1, 0xff, 0x10000, 0x53564355, 0x7fffffff, 0x80000000, 0xdeadbeef, 0xffffffff],
      put: putU32,
      get: u32,
      write: (b: Buffer, v: number, at: number) => b.writeUInt32BE(v, at),
      read: (b: Buffer, at: number) => b.readUInt32BE(at),
    },
  ];
  for (const w of widths) {
    for (const at of [0, 3]) {
      for (const v of w.values) {
        const ours = Buffer.alloc(8);
        const theirs = Buffer.alloc(8);
        w.put(ours, at, v);
        w.write(theirs, v, at);
        assert.deepEqual(ours, theirs, `${w.name} ${v} at ${at}`);
        assert.equal(w.get(theirs, at), w.read(theirs, at));
      }
    }
  }
  const doubles = [0, -0, 1, -1.5, Math.PI, 1e300, -1e-300, 123456.789, Number.MAX_SAFE_INTEGER, Infinity];
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
