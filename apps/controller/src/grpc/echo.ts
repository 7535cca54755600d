/** Characters of a caller's value an error message repeats at most (quote). */
export const ECHO_MAX_CHARS = 128;
/** Bytes of an error message sent to a gRPC caller at most (capMessage); far below the 8 KiB metadata limit. */
export const MESSAGE_MAX_BYTES = 512;

/**
 * A caller's value as an error message repeats it: JSON-quoted, and when longer than ECHO_MAX_CHARS only its first
 * 128 characters (code points, so a pair is never split) followed by `…(N bytes)` (N = the UTF-8 length of the whole value). Use it wherever a message
 * interpolates caller input, e.g. `${problem} address refused, got ${quote(address)}`.
 */
export function quote(value: string): string {
  if (value.length <= ECHO_MAX_CHARS) return JSON.stringify(value);
  let head = "";
  let chars = 0;
  for (const ch of value) {
    if (++chars > ECHO_MAX_CHARS) break;
    head += ch;
  }
  if (chars <= ECHO_MAX_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(head)}…(${Buffer.byteLength(value)} bytes)`;
}

/**
 * `message` cut to at most MESSAGE_MAX_BYTES UTF-8 bytes (ending `…(N bytes)` when cut, N = its full length): the
 * last guard of the gRPC edge, so no error echoes a caller's input in full (a 100 KB node name made the status too
 * large to deliver).
 */
export function capMessage(message: string, maxBytes = MESSAGE_MAX_BYTES): string {
  const total = Buffer.byteLength(message);
  if (total <= maxBytes) return message;
  const suffix = `…(${total} bytes)`;
  let out = "";
  let used = Buffer.byteLength(suffix);
  for (const ch of message) {
    const n = Buffer.byteLength(ch);
    if (used + n > maxBytes) break;
    out += ch;
    used += n;
  }
  return out + suffix;
}
