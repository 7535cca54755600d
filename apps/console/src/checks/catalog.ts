/**
 * Targets and check definitions in the console database (spec §2.6, §2.12, §4.3, §7). Every write and its audit
 * row commit in one transaction. Refusals: 404 for an unknown (or malformed: ids are opaque text) id; 409 for a
 * target name taken and for deleting a target a definition uses; 422 for an address that is no address, a type
 * its target cannot take, and an enabled definition no live agent could run (judged on the controller's snapshot
 * read before the transaction). `changed()` is called after every committed write (the fan-out listens).
 */
import { randomUUID } from "node:crypto";
import type {
  CheckDefinition,
  CheckInput,
  CheckProjection,
  SourceSelection,
  Target,
  TargetInput,
} from "@svc/contract";
import type { TopologyAgent } from "@svc/protocol";
import { ConflictError, NotFoundError, UnprocessableError } from "../errors.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row, SqlExecutor } from "../store/db.ts";
import { json, num } from "../store/rows.ts";
import { project, shapeProblem } from "./projection.ts";
import { checkSchedulesStillRun, refuseIfScheduled } from "./schedule-rules.ts";
import { parseTargetAddress } from "./target-address.ts";

const iso = (ms: number) => new Date(ms).toISOString();

function toTarget(r: Row): Target {
  return {
    id: String(r.id),
    name: String(r.name),
    kind: String(r.kind) === "url" ? "url" : "host",
    address: String(r.address),
    port: num(r.port),
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

function toCheck(r: Row): CheckDefinition {
  return {
    id: String(r.id),
    name: String(r.name),
    targetId: String(r.target_id),
    type: String(r.type) as CheckDefinition["type"],
    params: json<Record<string, unknown>>(r.params),
    sources: json<SourceSelection>(r.sources),
    intervalSeconds: num(r.interval_ms) / 1000,
    timeoutSeconds: num(r.timeout_ms) / 1000,
    enabled: Boolean(r.enabled),
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

/** A stored definition with its target, as the fan-out reads it. */
export interface EnabledDefinition {
  check: CheckDefinition;
  target: Target;
  createdAtMs: number;
}

/** Dependencies of the catalog. */
export interface CatalogOptions {
  db: Db;
  now: () => number;
  /** the controller's live agents (throws ControllerUnreachableError / ControllerUnconfiguredError) */
  liveAgents: () => Promise<readonly TopologyAgent[]>;
  /** called after each committed write */
  changed?: () => void;
}

/** Targets and check definitions. */
export class Catalog {
  constructor(private readonly o: CatalogOptions) {}

  async listTargets(): Promise<Target[]> {
    return (await this.o.db.query("SELECT * FROM targets ORDER BY name, id")).map(toTarget);
  }

  async getTarget(id: string): Promise<Target> {
    const [r] = await this.o.db.query("SELECT * FROM targets WHERE id = $1", [id]);
    if (!r) throw new NotFoundError("no such target");
    return toTarget(r);
  }

  createTarget(input: TargetInput, actor: AuditActor): Promise<Target> {
    const a = address(input.address);
    const now = this.o.now();
    return this.write(async (tx) => {
      const [r] = await tx.query(
        `INSERT INTO targets (id, name, kind, address, port, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (name) DO NOTHING RETURNING *`,
        [randomUUID(), input.name, a.kind, a.address, a.port, now],
      );
      if (!r) throw new ConflictError(`a target named ${input.name} exists`);
      const t = toTarget(r);
      await insertAudit(tx, allowedRow(actor, now, { targetId: t.id, name: t.name }));
      return t;
    });
  }

  updateTarget(id: string, input: TargetInput, actor: AuditActor): Promise<Target> {
    const a = address(input.address);
    const now = this.o.now();
    return this.write(async (tx) => {
      const [old] = await tx.query("SELECT id FROM targets WHERE id = $1 FOR UPDATE", [id]);
      if (!old) throw new NotFoundError("no such target");
      const [taken] = await tx.query("SELECT id FROM targets WHERE name = $1 AND id <> $2", [input.name, id]);
      if (taken) throw new ConflictError(`a target named ${input.name} exists`);
      for (const c of (
        await tx.query("SELECT * FROM check_definitions WHERE target_id = $1 AND enabled", [id])
      ).map(toCheck)) {
        const why = shapeProblem({ type: c.type, params: c.params, targetKind: a.kind });
        if (why) throw new UnprocessableError(`enabled check ${c.name} could no longer run: ${why}`);
      }
      const [r] = await tx.query(
        `UPDATE targets SET name = $2, kind = $3, address = $4, port = $5, updated_at = $6 WHERE id = $1
         RETURNING *`,
        [id, input.name, a.kind, a.address, a.port, now],
      );
      if (!r) throw new NotFoundError("no such target");
      const t = toTarget(r);
      await insertAudit(tx, allowedRow(actor, now, { targetId: t.id, name: t.name }));
      return t;
    });
  }

  deleteTarget(id: string, actor: AuditActor): Promise<void> {
    const now = this.o.now();
    return this.write(async (tx) => {
      const [old] = await tx.query("SELECT id FROM targets WHERE id = $1 FOR UPDATE", [id]);
      if (!old) throw new NotFoundError("no such target");
      const [used] = await tx.query<{ n: unknown }>(
        "SELECT count(*) AS n FROM check_definitions WHERE target_id = $1",
        [id],
      );
      if (num(used?.n) > 0)
        throw new ConflictError(`the target is used by ${num(used?.n)} check definition(s)`);
      await tx.query("DELETE FROM targets WHERE id = $1", [id]);
      await insertAudit(tx, allowedRow(actor, now, { targetId: id }));
    });
  }

  async listChecks(targetId?: string): Promise<CheckDefinition[]> {
    const rows = await this.o.db.query(
      "SELECT * FROM check_definitions WHERE ($1::text IS NULL OR target_id = $1::text) ORDER BY name, id",
      [targetId ?? null],
    );
    return rows.map(toCheck);
  }

  /** Enabled definitions with their targets, oldest first (the fan-out leaves out the newest when over budget). */
  async enabledDefinitions(): Promise<EnabledDefinition[]> {
    const rows = await this.o.db.query(
      `SELECT c.*, t.id AS t_id, t.name AS t_name, t.kind AS t_kind, t.address AS t_address, t.port AS t_port,
              t.created_at AS t_created_at, t.updated_at AS t_updated_at
       FROM check_definitions c JOIN targets t ON t.id = c.target_id
       WHERE c.enabled ORDER BY c.created_at, c.id`,
    );
    return rows.map((r) => ({
      check: toCheck(r),
      target: toTarget({
        id: r.t_id,
        name: r.t_name,
        kind: r.t_kind,
        address: r.t_address,
        port: r.t_port,
        created_at: r.t_created_at,
        updated_at: r.t_updated_at,
      }),
      createdAtMs: num(r.created_at),
    }));
  }

  /** What a draft would do (stores nothing). */
  async projection(input: CheckInput): Promise<CheckProjection> {
    const [t] = await this.o.db.query("SELECT kind FROM targets WHERE id = $1", [input.targetId]);
    const targetKind = t ? (String(t.kind) === "url" ? "url" : "host") : undefined;
    const shape = { type: input.type, params: input.params, sources: input.sources, targetKind } as const;
    if (shapeProblem(shape)) return project(shape, []);
    return project(shape, await this.o.liveAgents());
  }

  private async judge(input: CheckInput): Promise<void> {
    const p = await this.projection(input);
    if (!p.runnable) throw new UnprocessableError(`no agent could run this check: ${p.reasons.join("; ")}`);
  }

  async createCheck(input: CheckInput, actor: AuditActor): Promise<CheckDefinition> {
    await this.judgeOrShape(input);
    const now = this.o.now();
    return this.write(async (tx) => {
      await this.lockTarget(tx, input.targetId);
      const [r] = await tx.query(
        `INSERT INTO check_definitions (id, name, target_id, type, params, sources, interval_ms, timeout_ms,
           enabled, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $10) RETURNING *`,
        [randomUUID(), ...columns(input), now],
      );
      if (!r) throw new Error("insert returned no row");
      const c = toCheck(r);
      await insertAudit(tx, allowedRow(actor, now, { checkId: c.id, name: c.name, enabled: c.enabled }));
      return c;
    });
  }

  async updateCheck(id: string, input: CheckInput, actor: AuditActor): Promise<CheckDefinition> {
    const [old] = await this.o.db.query("SELECT id FROM check_definitions WHERE id = $1", [id]);
    if (!old) throw new NotFoundError("no such check definition");
    await this.judgeOrShape(input);
    const now = this.o.now();
    return this.write(async (tx) => {
      await this.lockTarget(tx, input.targetId);
      await checkSchedulesStillRun(tx, id, input.type);
      const [r] = await tx.query(
        `UPDATE check_definitions SET name = $2, target_id = $3, type = $4, params = $5::jsonb,
           sources = $6::jsonb, interval_ms = $7, timeout_ms = $8, enabled = $9, updated_at = $10
         WHERE id = $1 RETURNING *`,
        [id, ...columns(input), now],
      );
      if (!r) throw new NotFoundError("no such check definition");
      const c = toCheck(r);
      await insertAudit(tx, allowedRow(actor, now, { checkId: c.id, name: c.name, enabled: c.enabled }));
      return c;
    });
  }

  deleteCheck(id: string, actor: AuditActor): Promise<void> {
    const now = this.o.now();
    return this.write(async (tx) => {
      const [old] = await tx.query("SELECT id FROM check_definitions WHERE id = $1 FOR UPDATE", [id]);
      if (!old) throw new NotFoundError("no such check definition");
      await refuseIfScheduled(tx, id);
      const rows = await tx.query("DELETE FROM check_definitions WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such check definition");
      await insertAudit(tx, allowedRow(actor, now, { checkId: id }));
    });
  }

  /** An enabled definition is judged against the live agents; a disabled one only for an existing target. */
  private async judgeOrShape(input: CheckInput): Promise<void> {
    if (input.enabled) return this.judge(input);
    const [t] = await this.o.db.query("SELECT id FROM targets WHERE id = $1", [input.targetId]);
    if (!t) throw new UnprocessableError("targetId: no such target");
  }

  private async lockTarget(tx: SqlExecutor, id: string): Promise<void> {
    const [t] = await tx.query("SELECT id FROM targets WHERE id = $1 FOR SHARE", [id]);
    if (!t) throw new UnprocessableError("targetId: no such target");
  }

  /** Tells the listener of `changed` about writes committed through another Catalog (an import's transaction). */
  notifyChanged(): void {
    this.o.changed?.();
  }

  private async write<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const out = await this.o.db.transaction(fn);
    this.o.changed?.();
    return out;
  }
}

function address(raw: string) {
  const a = parseTargetAddress(raw);
  if ("error" in a) throw new UnprocessableError(a.error);
  return a;
}

function columns(input: CheckInput): unknown[] {
  return [
    input.name,
    input.targetId,
    input.type,
    JSON.stringify(input.params),
    JSON.stringify(input.sources),
    Math.round(input.intervalSeconds * 1000),
    Math.round(input.timeoutSeconds * 1000),
    input.enabled,
  ];
}
