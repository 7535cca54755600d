/**
 * Audit rows of allowed writes. A write and its row go in one transaction: an action whose row cannot be written
 * does not happen (issue 18). `insertAudit` is the one INSERT every store path uses.
 */
import type { SqlExecutor } from "./db.ts";
import type { NewAuditRow } from "./store.ts";

/** Who makes a change, and which (`METHOD /path`): an audit row without its time, outcome and detail. */
export type AuditActor = Pick<NewAuditRow, "subject" | "subjectDisplay" | "action" | "remoteAddr">;

/** The `allowed` row of `actor`'s change at `at`. */
export function allowedRow(actor: AuditActor, at: number, detail?: Record<string, unknown>): NewAuditRow {
  return detail ? { ...actor, at, outcome: "allowed", detail } : { ...actor, at, outcome: "allowed" };
}

/** Appends `row` through `exec` (the database, or a transaction). */
export async function insertAudit(exec: SqlExecutor, row: NewAuditRow): Promise<void> {
  await exec.query(
    `INSERT INTO audit (at, subject, subject_display, action, outcome, remote_addr, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [
      row.at,
      row.subject,
      row.subjectDisplay,
      row.action,
      row.outcome,
      row.remoteAddr,
      JSON.stringify(row.detail ?? {}),
    ],
  );
}
