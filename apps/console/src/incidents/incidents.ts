/**
 * Incidents (spec §2.9, §3.1): stored in the database; every write and its audit row in one transaction (a write
 * whose audit row cannot be written does not happen). Each lifecycle change is also a row of
 * `incident_transitions`, so a read can say what the status was at any instant (the Time Machine): an incident
 * counts as resolved at `at` only if its last transition at or before `at` resolved it, and it is listed only if
 * it was declared by then. Lifecycle webhooks go out after the commit (`onTransition`), never for a rolled-back
 * change. Resolving a resolved incident or reopening an open one is 409 (no transition, no webhook).
 */
import { randomUUID } from "node:crypto";
import {
  INCIDENT_PAGE_SIZE,
  INCIDENT_PINS_MAX,
  type Incident,
  type IncidentInput,
  type IncidentStatus,
  type IncidentsQuery,
  type PinInput,
  type PinnedFinding,
  timelineBadge,
} from "@svc/contract";
import { ConflictError, NotFoundError, UnprocessableError } from "../errors.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row, SqlExecutor } from "../store/db.ts";
import { json, num } from "../store/rows.ts";
import { checkIncident, checkNotes, checkPin } from "./check.ts";
import { decodeIncidentCursor, encodeIncidentCursor } from "./cursor.ts";

/** The lifecycle events (spec §6.3). */
export type IncidentEvent = "incident.created" | "incident.resolved" | "incident.reopened";

/** A committed lifecycle change, for the webhooks. */
export interface IncidentTransition {
  event: IncidentEvent;
  incident: Incident;
  /** epoch ms of the change */
  at: number;
}

/** A pin as stored in the incident's `pins` column. */
type StoredPin = Omit<PinnedFinding, "badge">;

// "live" reads ask for the status as of the end of time
const LIVE = Number.MAX_SAFE_INTEGER;

const iso = (ms: number) => new Date(ms).toISOString();

// every incident with its status (and the time of that status) as of $1; declared by then
const AS_OF = `
SELECT i.*, t.status AS status_at, t.at AS status_since
FROM incidents i
JOIN LATERAL (
  SELECT status, at FROM incident_transitions
  WHERE incident_id = i.id AND at <= $1::bigint ORDER BY at DESC, seq DESC LIMIT 1
) t ON true
WHERE i.opened_at <= $1::bigint`;

function toIncident(r: Row): Incident {
  const id = String(r.id);
  const status = String(r.status_at) as IncidentStatus;
  const pins = json<StoredPin[]>(r.pins).map((p) => ({ ...p, badge: timelineBadge(p.kind) }));
  return {
    id,
    status,
    kind: String(r.kind) as Incident["kind"],
    scope: String(r.scope),
    from: iso(num(r.window_from)),
    to: iso(num(r.window_to)),
    title: String(r.title),
    notes: String(r.notes),
    openedBy: String(r.opened_by),
    openedByDisplay: String(r.opened_by_display),
    openedAt: iso(num(r.opened_at)),
    resolvedAt: status === "resolved" ? iso(num(r.status_since)) : null,
    updatedAt: iso(num(r.updated_at)),
    permalink: `/investigate?incident=${encodeURIComponent(id)}`,
    pins,
  };
}

function storedPin(p: PinInput, actor: AuditActor, now: number): StoredPin {
  return {
    id: randomUUID(),
    timestamp: iso(Date.parse(p.timestamp)),
    kind: p.kind,
    severity: p.severity,
    title: p.title,
    detail: p.detail,
    reference: p.reference,
    note: p.note,
    pinnedAt: iso(now),
    pinnedBy: actor.subjectDisplay,
  };
}

/** One list page. */
export interface IncidentPage {
  incidents: Incident[];
  nextCursor: string | null;
}

/** Incident reads and audited writes. */
export class Incidents {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly onTransition: (t: IncidentTransition) => void = () => {},
  ) {}

  /** One page, newest first; with `at`, as of that instant. 400 for a cursor this console did not issue. */
  async list(q: IncidentsQuery): Promise<IncidentPage> {
    const at = q.at === undefined ? LIVE : Date.parse(q.at);
    const key = q.cursor === undefined ? undefined : decodeIncidentCursor(q.cursor);
    const rows = await this.db.query(
      `SELECT * FROM (${AS_OF}) x
       WHERE ($2::text IS NULL OR status_at = $2::text)
         AND ($3::bigint IS NULL OR (opened_at, id) < ($3::bigint, $4::text))
       ORDER BY opened_at DESC, id DESC LIMIT ${INCIDENT_PAGE_SIZE + 1}`,
      [at, q.status === "all" ? null : q.status, key?.openedAt ?? null, key?.id ?? ""],
    );
    const page = rows.slice(0, INCIDENT_PAGE_SIZE);
    const last = page.at(-1);
    return {
      incidents: page.map(toIncident),
      nextCursor:
        rows.length > INCIDENT_PAGE_SIZE && last
          ? encodeIncidentCursor({ openedAt: num(last.opened_at), id: String(last.id) })
          : null,
    };
  }

  /** One incident (as of `at`, when given); 404 when unknown or declared later. */
  async get(id: string, at?: string): Promise<Incident> {
    const found = await this.read(this.db, id, at === undefined ? LIVE : Date.parse(at));
    if (!found) throw new NotFoundError("no such incident");
    return found;
  }

  private async read(exec: SqlExecutor, id: string, at = LIVE): Promise<Incident | undefined> {
    const [row] = await exec.query(`${AS_OF} AND i.id = $2`, [at, id]);
    return row ? toIncident(row) : undefined;
  }

  /** Save as incident: opens it (with its pins) and sends `incident.created`. */
  async create(input: IncidentInput, actor: AuditActor): Promise<Incident> {
    const c = checkIncident(input);
    const now = this.now();
    const id = randomUUID();
    const pins = input.pins.map((p) => storedPin(p, actor, now));
    const out = await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO incidents (id, status, kind, scope, window_from, window_to, title, notes, opened_by,
           opened_by_display, opened_at, resolved_at, updated_at, pins)
         VALUES ($1, 'open', $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $10, $11::jsonb)`,
        [
          id,
          c.kind,
          c.scope,
          c.from,
          c.to,
          c.title,
          c.notes,
          actor.subject ?? "",
          actor.subjectDisplay,
          now,
          JSON.stringify(pins),
        ],
      );
      await tx.query("INSERT INTO incident_transitions (incident_id, at, status) VALUES ($1, $2, 'open')", [
        id,
        now,
      ]);
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id, kind: c.kind }));
      return this.mustRead(tx, id);
    });
    this.onTransition({ event: "incident.created", incident: out, at: now });
    return out;
  }

  /** Open -> Resolved; 409 when already resolved. */
  resolve(id: string, actor: AuditActor): Promise<Incident> {
    return this.transition(id, "resolved", actor);
  }

  /** Resolved -> Open; 409 when open. */
  reopen(id: string, actor: AuditActor): Promise<Incident> {
    return this.transition(id, "open", actor);
  }

  private async transition(id: string, to: IncidentStatus, actor: AuditActor): Promise<Incident> {
    const now = this.now();
    const out = await this.db.transaction(async (tx) => {
      const [row] = await tx.query("SELECT status FROM incidents WHERE id = $1 FOR UPDATE", [id]);
      if (!row) throw new NotFoundError("no such incident");
      if (String(row.status) === to)
        throw new ConflictError(
          to === "resolved" ? "incident is already resolved" : "incident is already open",
        );
      await tx.query("UPDATE incidents SET status = $2, resolved_at = $3, updated_at = $4 WHERE id = $1", [
        id,
        to,
        to === "resolved" ? now : null,
        now,
      ]);
      await tx.query("INSERT INTO incident_transitions (incident_id, at, status) VALUES ($1, $2, $3)", [
        id,
        now,
        to,
      ]);
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id, status: to }));
      return this.mustRead(tx, id);
    });
    this.onTransition({
      event: to === "resolved" ? "incident.resolved" : "incident.reopened",
      incident: out,
      at: now,
    });
    return out;
  }

  /** Replaces the notes; 422 for a control character other than line break or tab. */
  updateNotes(id: string, notes: string, actor: AuditActor): Promise<Incident> {
    checkNotes("notes", notes);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        "UPDATE incidents SET notes = $2, updated_at = $3 WHERE id = $1 RETURNING id",
        [id, notes, now],
      );
      if (rows.length === 0) throw new NotFoundError("no such incident");
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id }));
      return this.mustRead(tx, id);
    });
  }

  /** Pins a timeline row; 422 for an unpinnable kind, a bad note, or a full incident. */
  pin(id: string, input: PinInput, actor: AuditActor): Promise<Incident> {
    checkPin(input);
    const now = this.now();
    const pin = storedPin(input, actor, now);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query("SELECT pins FROM incidents WHERE id = $1 FOR UPDATE", [id]);
      if (!row) throw new NotFoundError("no such incident");
      const pins = json<StoredPin[]>(row.pins);
      if (pins.length >= INCIDENT_PINS_MAX)
        throw new UnprocessableError(`an incident holds at most ${INCIDENT_PINS_MAX} pinned findings`);
      await tx.query("UPDATE incidents SET pins = $2::jsonb, updated_at = $3 WHERE id = $1", [
        id,
        JSON.stringify([...pins, pin]),
        now,
      ]);
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id, pinId: pin.id, kind: pin.kind }));
      return this.mustRead(tx, id);
    });
  }

  /** Removes a pinned finding; 404 when the incident or the finding is unknown. */
  unpin(id: string, pinId: string, actor: AuditActor): Promise<void> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query("SELECT pins FROM incidents WHERE id = $1 FOR UPDATE", [id]);
      if (!row) throw new NotFoundError("no such incident");
      const pins = json<StoredPin[]>(row.pins);
      const kept = pins.filter((p) => p.id !== pinId);
      if (kept.length === pins.length) throw new NotFoundError("no such pinned finding");
      await tx.query("UPDATE incidents SET pins = $2::jsonb, updated_at = $3 WHERE id = $1", [
        id,
        JSON.stringify(kept),
        now,
      ]);
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id, pinId }));
    });
  }

  /** Deletes an incident, open or resolved (its transitions go with it). */
  delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM incidents WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such incident");
      await insertAudit(tx, allowedRow(actor, now, { incidentId: id }));
    });
  }

  private async mustRead(tx: SqlExecutor, id: string): Promise<Incident> {
    const out = await this.read(tx, id);
    if (!out) throw new Error(`incident ${id} vanished inside its own transaction`);
    return out;
  }
}
