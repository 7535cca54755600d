/**
 * Labels and annotations typed as one `name=value` per line (the rule editor's text areas): parsed to a map for the
 * API (the contract judges names and sizes), formatted back for editing. Bounded: at most MAX_LINES lines read.
 */

/** Lines read at most (the contract allows 32 entries; more lines are reported, not read). */
export const MAX_LINES = 64;

/** The parsed map, or the first line that is not `name=value`. */
export type ParsedLines = { ok: true; map: Record<string, string> } | { ok: false; error: string };

/** Parses `name=value` lines; blank lines are skipped; a repeated name is an error. */
export function parseLines(text: string, what: string): ParsedLines {
  const map: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_LINES) return { ok: false, error: `${what}: at most ${MAX_LINES} lines` };
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const eq = line.indexOf("=");
    if (eq <= 0) return { ok: false, error: `${what}, line ${i + 1}: write name=value` };
    const name = line.slice(0, eq).trim();
    if (Object.hasOwn(map, name)) return { ok: false, error: `${what}, line ${i + 1}: ${name} given twice` };
    map[name] = line.slice(eq + 1).trim();
  }
  return { ok: true, map };
}

/** The editing text of a map: one `name=value` per line, in key order. */
export function formatLines(map: Readonly<Record<string, string>>): string {
  return Object.keys(map)
    .sort()
    .map((k) => `${k}=${map[k]}`)
    .join("\n");
}
