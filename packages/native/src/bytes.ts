/**
 * Big-endian fields of packets, read and written with byte operations. Buffer's own methods (readUInt16BE and
 * the like) check their arguments through wrapper functions that allocate on every call unless V8's optimizing
 * compiler removes them, and the agent runs without it (docs/decisions.md, "Memory (agent)"). These check
 * nothing: callers check lengths first; a byte past the end reads as 0 and is not written.
 */

export function u16(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

export function u32(b: Uint8Array, at: number): number {
  return (((b[at] ?? 0) << 24) | ((b[at + 1] ?? 0) << 16) | ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0)) >>> 0;
}

export function putU16(b: Uint8Array, at: number, v: number): void {
  b[at] = (v >>> 8) & 0xff;
  b[at + 1] = v & 0xff;
}

export function putU32(b: Uint8Array, at: number, v: number): void {
  b[at] = (v >>> 24) & 0xff;
  b[at + 1] = (v >>> 16) & 0xff;
  b[at + 2] = (v >>> 8) & 0xff;
  b[at + 3] = v & 0xff;
}

// one 8-byte scratch for float conversion: the machine's byte order, reversed when little-endian
const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Writes v as an IEEE 754 double, big-endian (Buffer's writeDoubleBE). */
export function putF64(b: Uint8Array, at: number, v: number): void {
  scratch[0] = v;
  for (let i = 0; i < 8; i++) b[at + i] = scratchBytes[littleEndian ? 7 - i : i] ?? 0;
}
