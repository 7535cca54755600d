/** Go-style durations ("5s", "250ms", "1m30s", "1.5h") to milliseconds and back. */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * Parses a Go duration string into milliseconds. Every number needs a unit, except the bare string "0".
 * Negative durations are refused. Returns undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "0") return 0;
  if (s === "") return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) return undefined;
    const unit = UNIT_MS[m[2] ?? ""];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
  }
  return total;
}

/** Formats milliseconds as a compact Go-style duration ("1m30s", "250ms", "0s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (rest >= size) {
      const n = Math.floor(rest / size);
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  if (rest > 0) out += `${Number(rest.toFixed(6))}ms`;
  return out;
}
