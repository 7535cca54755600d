/** One sample of a Prometheus text exposition. */
export interface TextSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the sample lines of a text exposition (comments skipped). Good enough for test assertions. */
export function parseExposition(text: string): TextSample[] {
  const out: TextSample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, "$1");
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Fetches and parses a /metrics URL. */
export async function scrape(url: string): Promise<TextSample[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return parseExposition(await res.text());
}
