/**
 * Human-readable rendering of one pino JSON record: `2026-11-23T10:00:00.000Z INFO  msg key=value`.
 * One line per record, always; newlines inside values are escaped.
 */

const BARE = /^[^\s"=\\]+$/;

function renderValue(v: unknown): string {
  if (typeof v === "string") return BARE.test(v) ? v : JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  if (typeof v === "object" && v !== null && "message" in v && "stack" in v) {
    return JSON.stringify(String((v as { message: unknown }).message));
  }
  return JSON.stringify(v) ?? String(v);
}

/**
 * Converts a pino JSON line (level as label, ISO time) to a text line ending in "\n". A line that is not JSON is
 * passed through unchanged.
 */
export function formatTextLine(jsonLine: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith("\n") ? jsonLine : `${jsonLine}\n`;
  }
  const { time, level, msg, ...rest } = rec;
  let out = `${String(time ?? "")} ${String(level ?? "")
    .toUpperCase()
    .padEnd(5)}`;
  if (msg !== undefined && msg !== "") out += ` ${String(msg).replace(/\r?\n/g, "\\n")}`;
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined) continue;
    out += ` ${k}=${renderValue(v)}`;
  }
  return `${out}\n`;
}
