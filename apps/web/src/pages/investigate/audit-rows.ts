/**
 * Audit rows as timeline rows (spec §4.5 point 4). GET /api/v1/audit answers the newest 200 with no time filter, so
 * the window is applied here. A row names its request as `METHOD /path` (path parameters as `:name`).
 * - read-only requests (GET, HEAD, OPTIONS) and the four POST routes that store nothing (the two metrics queries,
 *   check projection, alert-rule preview) fold into one row, never ranked, as does a configuration import's dry run
 *   (`POST /api/v1/import?dryRun=true`: it stores nothing either);
 * - rows with outcome `denied` or `error`, and sign-in, sign-out and password-change rows, stay as their own rows
 *   but are never ranked;
 * - every other row (an allowed change) is an audit row the ranking weighs.
 */
import * as c from "@svc/contract";
import type { TimelineEntry } from "./timeline.ts";

type AuditRow = c.AuditRowView;

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** `METHOD /path` of a route, as the console writes it into audit rows. */
function actionOf(route: { method: string; path: string }): string {
  return `${route.method} ${route.path.replace(/\{([A-Za-z]+)\}/g, ":$1")}`;
}

/** The POST routes that store nothing (§4.5 point 4). */
export const STORE_NOTHING_ACTIONS: ReadonlySet<string> = new Set(
  [c.queryMetrics, c.queryMetricsRange, c.projectCheck, c.previewAlertRule].map(actionOf),
);

/** A configuration import's dry run: it stores nothing, so it folds with the read-only requests. */
export const DRY_RUN_IMPORT = `${actionOf(c.importConfig)}?dryRun=true`;

/** Sign-in (local and OIDC), sign-out and password change. */
export const SESSION_ACTIONS: ReadonlySet<string> = new Set([
  `POST ${c.LOGIN_PATH}`,
  `GET ${c.OIDC_CALLBACK_PATH}`,
  actionOf(c.logout),
  `POST ${c.PASSWORD_PATH}`,
]);

/** How §4.5 treats one audit row. */
export type AuditClass = "ranked" | "folded" | "own-row";

export function classifyAudit(row: Pick<AuditRow, "action" | "outcome">): AuditClass {
  const action = row.action.trim();
  const method = action.split(" ", 1)[0]?.toUpperCase() ?? "";
  if (READ_METHODS.has(method) && !SESSION_ACTIONS.has(action)) return "folded";
  if (STORE_NOTHING_ACTIONS.has(action) || action === DRY_RUN_IMPORT) return "folded";
  if (row.outcome !== "allowed") return "own-row";
  if (SESSION_ACTIONS.has(action)) return "own-row";
  return "ranked";
}

function who(row: AuditRow): string {
  return row.subjectDisplay || row.subject || "anonymous";
}

/**
 * The timeline rows of the audit rows inside [fromMs, toMs]: one per ranked or own-row row, and one folded row
 * (at the newest folded request) counting the read-only requests.
 */
export function auditTimeline(rows: readonly AuditRow[], fromMs: number, toMs: number): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const folded: AuditRow[] = [];
  for (const row of rows) {
    const t = Date.parse(row.at);
    if (Number.isNaN(t) || t < fromMs || t > toMs) continue;
    const cls = classifyAudit(row);
    if (cls === "folded") {
      folded.push(row);
      continue;
    }
    const own = cls === "own-row";
    out.push({
      timestamp: new Date(t).toISOString(),
      kind: "audit-row",
      severity: row.outcome === "error" ? "error" : row.outcome === "denied" ? "warn" : "info",
      title: `${row.action} by ${who(row)}${row.outcome === "allowed" ? "" : ` (${row.outcome})`}`,
      detail: `from ${row.remoteAddr || "unknown address"}${own ? " · not ranked" : ""}`,
      reference: `audit:${row.id}`,
      ...(own ? { excluded: true } : {}),
    });
  }
  if (folded.length > 0) {
    const newest = Math.max(...folded.map((r) => Date.parse(r.at)));
    const subjects = new Set(folded.map(who));
    out.push({
      timestamp: new Date(newest).toISOString(),
      kind: "audit-row",
      severity: "info",
      title: `${folded.length} read-only request${folded.length === 1 ? "" : "s"}`,
      detail: `by ${[...subjects].slice(0, 5).join(", ")}${subjects.size > 5 ? ` and ${subjects.size - 5} more` : ""} · not ranked`,
      reference: "audit:read-only",
      excluded: true,
    });
  }
  return out;
}
