/**
 * The Investigation page's committed parameters (spec §2.10): URL keys `kind`, `scope`, `from`, `to`; the incident
 * permalink `/investigate?incident=<id>` carries only that key. Kinds in the URL: `pair`, `node`, `target`,
 * `zone-pair`, `cluster`. Scopes: a pair and a zone pair as `<a>-><b>` (`a => b` and `a > b` are read alike), a
 * node by name, a target by id, the cluster with none. The window defaults to the hour before `to`, and `to` to now
 * (or the Time Machine instant).
 */

export const INVESTIGATION_KINDS = ["pair", "node", "target", "zone-pair", "cluster"] as const;
export type InvestigationKind = (typeof INVESTIGATION_KINDS)[number];

export const KIND_LABELS: Readonly<Record<InvestigationKind, string>> = {
  pair: "Pair",
  node: "Node",
  target: "Target",
  "zone-pair": "Zone pair",
  cluster: "Cluster",
};

/** Longest window, in days (a week of Prometheus range data at the page's step stays under its point limit). */
export const MAX_WINDOW_DAYS = 7;
const MAX_SCOPE = 512;

export interface Investigation {
  kind: InvestigationKind;
  /** normalised scope: `a->b` for pairs and zone pairs, "" for the cluster */
  scope: string;
  /** ISO 8601 */
  from: string;
  to: string;
}

/** What the URL asks for: parameters, an incident, or an error to show (nothing loads then). */
export type Parsed =
  | { ok: true; value: Investigation }
  | { ok: true; incident: string }
  | { ok: false; error: string; partial: Partial<Investigation> };

/** The two ends of a pair scope, or undefined when `scope` is not `<a>-><b>` with both ends named. */
export function pairEnds(scope: string): [string, string] | undefined {
  const m = /^\s*(.+?)\s*(?:->|=>|>)\s*(.+?)\s*$/.exec(scope);
  if (!m?.[1] || !m[2] || /(?:->|=>|>)/.test(m[2])) return undefined;
  return [m[1], m[2]];
}

function instant(v: unknown): string | undefined {
  if (typeof v !== "string" || v.length > 64 || !/^\d{4}-\d{2}-\d{2}T/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

/** Normalises a scope for `kind`, or returns the error a user should read. */
export function normaliseScope(kind: InvestigationKind, raw: string): { scope: string } | { error: string } {
  const s = raw.trim();
  if (s.length > MAX_SCOPE) return { error: `The scope is longer than ${MAX_SCOPE} characters.` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(s)) return { error: "The scope holds a control character." };
  if (kind === "cluster") return { scope: "" };
  if (kind === "pair" || kind === "zone-pair") {
    const ends = pairEnds(s);
    const what = kind === "pair" ? "a pair of nodes" : "a pair of zones";
    if (!ends) return { error: `Write ${what} as <source>-><destination>.` };
    return { scope: `${ends[0]}->${ends[1]}` };
  }
  if (s === "") return { error: kind === "node" ? "Name a node." : "Choose a target." };
  return { scope: s };
}

/** Reads the page's search parameters; `now` is the live instant or the Time Machine's. */
export function parseInvestigation(search: Record<string, unknown>, now: number): Parsed {
  if (typeof search.incident === "string" && search.incident !== "") {
    return search.incident.length <= 64
      ? { ok: true, incident: search.incident }
      : { ok: false, error: "That incident id is malformed.", partial: {} };
  }
  const kind = INVESTIGATION_KINDS.find((k) => k === search.kind) ?? "cluster";
  const to = instant(search.to) ?? new Date(now).toISOString();
  const from = instant(search.from) ?? new Date(Date.parse(to) - 3_600_000).toISOString();
  const partial: Partial<Investigation> = { kind, from, to };
  if (search.kind !== undefined && search.kind !== kind)
    return { ok: false, error: `Unknown kind; choose one of ${INVESTIGATION_KINDS.join(", ")}.`, partial };
  const sc = normaliseScope(kind, typeof search.scope === "string" ? search.scope : "");
  if ("error" in sc) return { ok: false, error: sc.error, partial };
  const span = Date.parse(to) - Date.parse(from);
  if (span <= 0) return { ok: false, error: "The window must start before it ends.", partial };
  if (span > MAX_WINDOW_DAYS * 86_400_000)
    return { ok: false, error: `The window is longer than ${MAX_WINDOW_DAYS} days.`, partial };
  if (Date.parse(from) > now) return { ok: false, error: "The window starts in the future.", partial };
  return { ok: true, value: { kind, scope: sc.scope, from, to } };
}

/** The search parameters of an investigation (the cluster carries no scope). */
export function investigationSearch(i: Investigation): Record<string, string> {
  return i.kind === "cluster"
    ? { kind: i.kind, from: i.from, to: i.to }
    : { kind: i.kind, scope: i.scope, from: i.from, to: i.to };
}

/** The Export JSON file name: from the window start, colons made filesystem-safe. */
export function exportFileName(i: Investigation): string {
  return `investigation-${i.from.replace(/:/g, "-")}.json`;
}
