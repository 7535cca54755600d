/**
 * Operator annotations (spec §2.11, §2.12): point notes and ranged spans, stored in the database; every write and
 * its audit row commit in one transaction (a write whose row cannot be written does not happen). Refusals: 422 for
 * a text that is empty or white space only and for a span that does not end after it starts; 404 for an unknown id.
 * Annotations are operator records, not history: the retention purge leaves them (docs/decisions.md).
 */
import { randomUUID } from "node:crypto";
import { ANNOTATION_PAGE_MAX, type Annotation, type AnnotationInput } from "@svc/contract";
import { NotFoundError, UnprocessableError } from "../errors.ts";
import { canonicalScope } from "../events/scope.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row } from "../store/db.ts";
import { num } from "../store/rows.ts";

/** A list window and scope filter (`needle`: normalised, lower-cased substring). */
export interface AnnotationFilter {
  from?: number;
  to?: number;
  needle?: string;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toAnnotation(r: Row): Annotation {
  return {
    id: String(r.id),
    at: iso(num(r.at)),
    endAt: r.end_at === null || r.end_at === undefined ? null : iso(num(r.end_at)),
    text: String(r.text),
    scope: String(r.scope),
    author: String(r.author),
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

interface Checked {
  at: number;
  endAt: number | null;
  text: string;
  scope: string;
}

/** The input as stored, or UnprocessableError (422). */
function check(input: AnnotationInput): Checked {
  if (input.text.trim() === "") throw new UnprocessableError("text must not be empty");
  const at = Date.parse(input.at);
  const endAt = input.endAt == null ? null : Date.parse(input.endAt);
  if (endAt !== null && endAt <= at) throw new UnprocessableError("endAt must be after at");
  return { at, endAt, text: input.text, scope: canonicalScope(input.scope) };
}

/** Annotation reads and audited writes over the console database. */
export class Annotations {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** Annotations overlapping [from, to], newest first, at most ANNOTATION_PAGE_MAX. */
  async list(f: AnnotationFilter): Promise<Annotation[]> {
    const rows = await this.db.query(
      `SELECT * FROM annotations
       WHERE ($1::bigint IS NULL OR coalesce(end_at, at) >= $1::bigint)
         AND ($2::bigint IS NULL OR at <= $2::bigint)
         AND ($3::text IS NULL OR strpos(lower(scope), $3::text) > 0)
       ORDER BY at DESC, id DESC LIMIT $4`,
      [f.from ?? null, f.to ?? null, f.needle ? f.needle : null, ANNOTATION_PAGE_MAX],
    );
    return rows.map(toAnnotation);
  }

  /** Creates an annotation written by `actor` (display name as author). */
  create(input: AnnotationInput, actor: AuditActor): Promise<Annotation> {
    const a = check(input);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `INSERT INTO annotations (id, at, end_at, text, scope, author, author_subject, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
        [randomUUID(), a.at, a.endAt, a.text, a.scope, actor.subjectDisplay, actor.subject, now],
      );
      if (!row) throw new Error("insert returned no row");
      const out = toAnnotation(row);
      await insertAudit(tx, allowedRow(actor, now, { annotationId: out.id, scope: out.scope }));
      return out;
    });
  }

  /** Replaces an annotation's instant, end, text and scope; NotFoundError for an unknown id. */
  update(id: string, input: AnnotationInput, actor: AuditActor): Promise<Annotation> {
    const a = check(input);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE annotations SET at = $2, end_at = $3, text = $4, scope = $5, author = $6, author_subject = $7,
           updated_at = $8 WHERE id = $1 RETURNING *`,
        [id, a.at, a.endAt, a.text, a.scope, actor.subjectDisplay, actor.subject, now],
      );
      if (!row) throw new NotFoundError("no such annotation");
      const out = toAnnotation(row);
      await insertAudit(tx, allowedRow(actor, now, { annotationId: out.id, scope: out.scope }));
      return out;
    });
  }

  /** Deletes an annotation; NotFoundError for an unknown id. */
  delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM annotations WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such annotation");
      await insertAudit(tx, allowedRow(actor, now, { annotationId: id }));
    });
  }
}
