/**
 * Test helper: a fingerprint of the console's state in one query (users, tokens, bindings, custom roles, session
 * ids, annotations, targets, check definitions, runs (which exist, not how far they got), and the count of audit rows that are not `denied`), to check that a refused request changed
 * nothing.
 */
import type { SqlExecutor } from "../store/db.ts";

/** The fingerprint: one digest per table, and the count of non-denied audit rows. */
export interface StoreSnapshot {
  users: string;
  tokens: string;
  bindings: string;
  roles: string;
  sessions: string;
  annotations: string;
  targets: string;
  checks: string;
  runs: string;
  schedules: string;
  audit: number;
}

const digest = (table: string, row: string) =>
  `(SELECT md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) FROM ${table} t)`;

const QUERY = `SELECT
  ${digest("users", "t::text")} AS users,
  ${digest("api_tokens", "t::text")} AS tokens,
  ${digest("role_bindings", "t::text")} AS bindings,
  ${digest("custom_roles", "t::text")} AS roles,
  ${digest("sessions", "t.id_hash || t.subject")} AS sessions,
  ${digest("annotations", "t::text")} AS annotations,
  ${digest("targets", "t::text")} AS targets,
  ${digest("check_definitions", "t::text")} AS checks,
  ${digest("runs", "t.id || t.spec::text")} AS runs,
  ${digest("schedules", "t.id || t.name || t.definition_id || t.kind || t.interval_ms || t.enabled")} AS schedules,
  (SELECT count(*) FROM audit WHERE outcome <> 'denied') AS audit`;

/** The fingerprint of the state `db` holds now. */
export async function snapshot(db: SqlExecutor): Promise<StoreSnapshot> {
  const [r] = await db.query(QUERY);
  if (!r) throw new Error("snapshot query returned no row");
  return {
    users: String(r.users),
    tokens: String(r.tokens),
    bindings: String(r.bindings),
    roles: String(r.roles),
    sessions: String(r.sessions),
    annotations: String(r.annotations),
    targets: String(r.targets),
    checks: String(r.checks),
    runs: String(r.runs),
    schedules: String(r.schedules),
    audit: Number(r.audit),
  };
}
