/**
 * Maintenance windows (spec §3.4, §6.3 point 7): stored in the database, every write and its audit row in one
 * transaction. A window matches an alert by its labels: `fleet` every alert; `node` an alert whose `source_node` or
 * `destination_node` (or `node`) is the node; `pair` an alert whose `source_node` and `destination_node` are the
 * pair's; `target` an alert whose `target` label is the window's target. A window covers [startAt, endAt).
 */
import { randomUUID } from "node:crypto";
import type { MaintenanceInput, MaintenanceWindow } from "@svc/contract";
import { NotFoundError, UnprocessableError } from "../errors.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row } from "../store/db.ts";
import { num } from "../store/rows.ts";

/** A window as the matcher needs it (epoch ms). */
export interface WindowSpan {
  scope: MaintenanceWindow["scope"];
  node: string;
  source: string;
  destination: string;
  target: string;
  startAt: number;
  endAt: number;
}

/** True when window `w` covers an alert labelled `labels` (its time not considered). */
export function windowMatches(w: WindowSpan, labels: Record<string, string>): boolean {
  switch (w.scope) {
    case "fleet":
      return true;
    case "node":
      return labels.source_node === w.node || labels.destination_node === w.node || labels.node === w.node;
    case "pair":
      return labels.source_node === w.source && labels.destination_node === w.destination;
    case "target":
      return labels.target === w.target;
    default:
      return false;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toSpan(r: Row): WindowSpan {
  return {
    scope: String(r.scope) as WindowSpan["scope"],
    node: String(r.node),
    source: String(r.source),
    destination: String(r.destination),
    target: String(r.target),
    startAt: num(r.start_at),
    endAt: num(r.end_at),
  };
}

function toWindow(r: Row): MaintenanceWindow {
  const s = toSpan(r);
  return {
    id: String(r.id),
    ...s,
    startAt: iso(s.startAt),
    endAt: iso(s.endAt),
    reason: String(r.reason),
    author: String(r.author),
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

/** The input as stored, or a 422. */
function check(input: MaintenanceInput): WindowSpan & { reason: string } {
  const startAt = Date.parse(input.startAt);
  const endAt = Date.parse(input.endAt);
  if (endAt <= startAt) throw new UnprocessableError("endAt must be after startAt");
  const need: Record<WindowSpan["scope"], (keyof MaintenanceInput)[]> = {
    fleet: [],
    node: ["node"],
    pair: ["source", "destination"],
    target: ["target"],
  };
  for (const key of ["node", "source", "destination", "target"] as const) {
    const used = (need[input.scope] ?? []).includes(key);
    if (used && input[key].trim() === "")
      throw new UnprocessableError(`${key} is required for scope ${input.scope}`);
    if (!used && input[key] !== "")
      throw new UnprocessableError(`${key} must be empty for scope ${input.scope}`);
  }
  return { ...input, startAt, endAt };
}

/** Window reads and audited writes. */
/** The stored columns of a checked window, in the order both the insert and the update name them. */
function columns(w: ReturnType<typeof check>): unknown[] {
  return [w.scope, w.node, w.source, w.destination, w.target, w.startAt, w.endAt, w.reason];
}

export class MaintenanceWindows {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async list(): Promise<MaintenanceWindow[]> {
    return (await this.db.query("SELECT * FROM maintenance_windows ORDER BY start_at DESC, id")).map(
      toWindow,
    );
  }

  /** Windows matching `labels` that are open at `at`. */
  async matching(labels: Record<string, string>, at: number): Promise<WindowSpan[]> {
    const rows = await this.db.query(
      "SELECT * FROM maintenance_windows WHERE start_at <= $1::bigint AND end_at > $1::bigint",
      [at],
    );
    return rows.map(toSpan).filter((w) => windowMatches(w, labels));
  }

  create(input: MaintenanceInput, actor: AuditActor): Promise<MaintenanceWindow> {
    const w = check(input);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `INSERT INTO maintenance_windows (id, scope, node, source, destination, target, start_at, end_at, reason,
           author, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
        [randomUUID(), ...columns(w), actor.subjectDisplay, now],
      );
      if (!row) throw new Error("insert returned no row");
      const out = toWindow(row);
      await insertAudit(tx, allowedRow(actor, now, { windowId: out.id, scope: out.scope }));
      return out;
    });
  }

  update(id: string, input: MaintenanceInput, actor: AuditActor): Promise<MaintenanceWindow> {
    const w = check(input);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE maintenance_windows SET scope = $2, node = $3, source = $4, destination = $5, target = $6,
           start_at = $7, end_at = $8, reason = $9, author = $10, updated_at = $11 WHERE id = $1 RETURNING *`,
        [id, ...columns(w), actor.subjectDisplay, now],
      );
      if (!row) throw new NotFoundError("no such maintenance window");
      const out = toWindow(row);
      await insertAudit(tx, allowedRow(actor, now, { windowId: id, scope: out.scope }));
      return out;
    });
  }

  delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM maintenance_windows WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such maintenance window");
      await insertAudit(tx, allowedRow(actor, now, { windowId: id }));
    });
  }
}
