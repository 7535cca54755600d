/**
 * Schedules: a check definition run on a cadence as one-shot external diagnostics (spec §4.2) from every live agent
 * its projection picks to its target. Kind `check` runs the definition's type (tcp and icmp reach an external
 * target; dns and http do not: 422), kind `mtr` traces to the target (each trace kept in the MTR path history). A
 * tcp round dials the target's port (checkPort), sent as the diagnostics body's `destinationPort` extension.
 *
 * Timing: a sweep every `sweepMs` (5 s) on the injected Scheduler takes each enabled schedule whose next run is due,
 * claims it by moving `next_at` one interval on (a compare-and-set, so replicas never run one round twice), runs
 * the round and stores its stamps and failure. A round fails when the controller cannot be asked, no live agent
 * could run it, or any agent's probe did not succeed; the message names the failing agents. Each round is also
 * recorded as a run (`origin: "schedule"`, one pair per agent; Runs.recordScheduled), so the runs list, the pages
 * reading it and the investigation show what schedules did.
 */
import { randomUUID } from "node:crypto";
import type { RunPair, RunProbeType, Schedule, ScheduleInput } from "@svc/contract";
import { checkPort } from "@svc/protocol";
import { NotFoundError, UnprocessableError } from "../errors.ts";
import type { Scheduler } from "../events/ingester.ts";
import type { ControllerClient, DiagnosticsAnswer } from "../fleet/controller-client.ts";
import type { ConsoleLogger } from "../log.ts";
import type { MtrHistory } from "../runs/mtr-history.ts";
import type { Runs, ScheduledRound } from "../runs/runs.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row, SqlExecutor } from "../store/db.ts";
import { num } from "../store/rows.ts";
import type { Catalog } from "./catalog.ts";
import { project } from "./projection.ts";
import { kindProblem } from "./schedule-rules.ts";

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(num(ms)).toISOString());

function toSchedule(r: Row): Schedule {
  const enabled = Boolean(r.enabled);
  const failing =
    r.last_failure_at !== null &&
    r.last_failure_at !== undefined &&
    num(r.last_failure_at) >= num(r.last_at ?? 0);
  return {
    id: String(r.id),
    name: String(r.name),
    definitionId: String(r.definition_id),
    kind: String(r.kind) === "mtr" ? "mtr" : "check",
    intervalSeconds: num(r.interval_ms) / 1000,
    enabled,
    state: !enabled ? "paused" : failing ? "failing" : "active",
    nextRunAt: enabled ? iso(r.next_at) : null,
    lastRunAt: iso(r.last_at),
    lastFailure: r.last_failure === null || r.last_failure === undefined ? null : String(r.last_failure),
    lastFailureAt: iso(r.last_failure_at),
    createdAt: iso(r.created_at) ?? "",
    updatedAt: iso(r.updated_at) ?? "",
  };
}

/** What one round did, before it is stored as a run (Runs.recordScheduled). */
type Round = Pick<ScheduledRound, "type" | "target" | "pairs" | "error">;

/**
 * A round's failure for the schedule's `lastFailure`: undefined when every agent's probe succeeded, else why it
 * could not run or the first failing agents' errors (`<node>: <error>`).
 */
function roundFailure(r: Round): string | undefined {
  if (r.error !== null) return r.error;
  const failures = r.pairs
    .filter((p) => p.successes === 0)
    .map((p) => `${p.source}: ${p.lastError ?? "failed"}`);
  return failures.length === 0 ? undefined : failures.join("; ").slice(0, 2000);
}

/** Dependencies of the schedules. */
export interface SchedulesOptions {
  db: Db;
  scheduler: Scheduler;
  catalog: Catalog;
  controller: Pick<ControllerClient, "topology" | "diagnostics">;
  mtr: MtrHistory;
  /** where each round is recorded as a run (absent: rounds leave only the schedule's stamps) */
  runs?: Pick<Runs, "recordScheduled">;
  log: ConsoleLogger;
  /** true while MTRCompleted events bring every trace (then rounds do not record their own) */
  eventsFed?: () => boolean;
  sweepMs?: number;
}

/** Schedule records and their execution. */
export class Schedules {
  private timer: { cancel(): void } | undefined;
  private busy: Promise<void> | undefined;
  private running = false;
  private again = false;

  constructor(private readonly o: SchedulesOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const tick = () => {
      if (!this.running) return;
      this.kick();
      this.timer = this.o.scheduler.schedule(this.o.scheduler.now() + (this.o.sweepMs ?? 5_000), tick);
    };
    tick();
  }

  /** Sweeps now, or once more after the sweep in flight (a tick never gets lost behind a slow sweep). */
  private kick(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = this.sweep()
      .then(() => {})
      .catch((e: unknown) => this.o.log.warn({ err: String(e) }, "schedule sweep failed"))
      .finally(() => {
        this.busy = undefined;
        if (this.again && this.running) {
          this.again = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    await this.busy;
  }

  /** Resolves once no sweep is in flight. */
  async settled(): Promise<void> {
    while (this.busy) await this.busy;
  }

  async list(): Promise<Schedule[]> {
    return (await this.o.db.query("SELECT * FROM schedules ORDER BY name, id")).map(toSchedule);
  }

  async create(input: ScheduleInput, actor: AuditActor): Promise<Schedule> {
    await this.judge(input);
    const now = this.o.scheduler.now();
    return this.o.db.transaction(async (tx) => {
      await this.lockDefinition(tx, input.definitionId);
      const [r] = await tx.query(
        `INSERT INTO schedules (id, name, definition_id, kind, interval_ms, enabled, next_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7) RETURNING *`,
        [
          randomUUID(),
          input.name,
          input.definitionId,
          input.kind,
          input.intervalSeconds * 1000,
          input.enabled,
          now,
        ],
      );
      if (!r) throw new Error("insert returned no row");
      const s = toSchedule(r);
      await insertAudit(tx, allowedRow(actor, now, { scheduleId: s.id, name: s.name, enabled: s.enabled }));
      return s;
    });
  }

  async update(id: string, input: ScheduleInput, actor: AuditActor): Promise<Schedule> {
    const [old] = await this.o.db.query("SELECT id FROM schedules WHERE id = $1", [id]);
    if (!old) throw new NotFoundError("no such schedule");
    await this.judge(input);
    const now = this.o.scheduler.now();
    return this.o.db.transaction(async (tx) => {
      await this.lockDefinition(tx, input.definitionId);
      const [r] = await tx.query(
        `UPDATE schedules SET name = $2, definition_id = $3, kind = $4, interval_ms = $5, enabled = $6,
           next_at = CASE WHEN enabled AND interval_ms = $5 THEN next_at ELSE $7 END, updated_at = $7
         WHERE id = $1 RETURNING *`,
        [id, input.name, input.definitionId, input.kind, input.intervalSeconds * 1000, input.enabled, now],
      );
      if (!r) throw new NotFoundError("no such schedule");
      const s = toSchedule(r);
      await insertAudit(tx, allowedRow(actor, now, { scheduleId: s.id, name: s.name, enabled: s.enabled }));
      return s;
    });
  }

  delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.o.scheduler.now();
    return this.o.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM schedules WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such schedule");
      await insertAudit(tx, allowedRow(actor, now, { scheduleId: id }));
    });
  }

  /** Runs every due schedule once; resolves with how many rounds ran. */
  async sweep(): Promise<number> {
    const now = this.o.scheduler.now();
    const due = await this.o.db.query(
      "SELECT * FROM schedules WHERE enabled AND next_at <= $1 ORDER BY next_at, id LIMIT 100",
      [now],
    );
    let ran = 0;
    for (const r of due) {
      const claimed = await this.o.db.query(
        "UPDATE schedules SET next_at = $3 WHERE id = $1 AND next_at = $2 AND enabled RETURNING id",
        [r.id, r.next_at, now + num(r.interval_ms)],
      );
      if (claimed.length === 0) continue;
      const startedAt = this.o.scheduler.now();
      const round = await this.round(String(r.definition_id), String(r.kind)).catch(
        (e: unknown): Round => ({
          type: String(r.kind) === "mtr" ? "mtr" : "tcp",
          target: null,
          pairs: [],
          error: e instanceof Error ? e.message : String(e),
        }),
      );
      const failure = roundFailure(round);
      const at = this.o.scheduler.now();
      await this.o.db.query(
        `UPDATE schedules SET last_at = $2,
           last_failure = COALESCE($3, last_failure), last_failure_at = CASE WHEN $3::text IS NULL THEN last_failure_at ELSE $2 END
         WHERE id = $1`,
        [r.id, at, failure ?? null],
      );
      await this.o.runs
        ?.recordScheduled({
          ...round,
          schedule: { id: String(r.id), name: String(r.name) },
          startedAt,
          finishedAt: at,
        })
        .catch((e: unknown) => this.o.log.warn({ err: String(e) }, "scheduled round not recorded as a run"));
      ran++;
    }
    return ran;
  }

  /** One round: a probe from each agent the definition picks, each one pair; `error` when none could be asked. */
  private async round(definitionId: string, kind: string): Promise<Round> {
    const all = await this.o.catalog.listChecks();
    const known = all.find((d) => d.id === definitionId);
    const type: RunProbeType = kind === "mtr" ? "mtr" : (known?.type ?? "tcp");
    const def = (await this.o.catalog.enabledDefinitions()).find((d) => d.check.id === definitionId);
    if (!def) return { type, target: null, pairs: [], error: "the definition is disabled or gone" };
    const target = { id: def.target.id, name: def.target.name };
    const why = kindProblem(kind, def.check.type);
    if (why) return { type, target, pairs: [], error: why };
    const topo = await this.o.controller.topology();
    const p = project(
      {
        type: def.check.type,
        params: def.check.params,
        sources: def.check.sources,
        targetKind: def.target.kind,
      },
      topo.agents,
    );
    if (!p.runnable)
      return { type, target, pairs: [], error: `no agent could run it: ${p.reasons.join("; ")}` };
    const address = def.target.kind === "url" ? new URL(def.target.address).hostname : def.target.address;
    // the diagnostics body's destinationPort extension: a controller older than it ignores the field
    const port = checkPort(type, { kind: "external", port: def.target.port });
    const pairs: RunPair[] = [];
    for (const a of p.agents) {
      const pair: RunPair = {
        source: a.nodeName,
        destination: def.target.name,
        state: "failed",
        samples: 0,
        successes: 0,
        lastError: null,
        lastStatus: null,
        lastResult: null,
      };
      pairs.push(pair);
      let res: DiagnosticsAnswer;
      try {
        res = await this.o.controller.diagnostics({
          source: a.nodeName,
          destination: def.target.name,
          destinationKind: "external",
          destinationAddress: address,
          ...(port > 0 ? { destinationPort: port } : {}),
          type,
        });
      } catch (e) {
        pair.lastError = e instanceof Error ? e.message : String(e);
        continue;
      }
      pair.lastStatus = res.status;
      if (res.status !== 200) {
        pair.lastError = `controller answered ${res.status}: ${res.text.slice(0, 200)}`;
        continue;
      }
      const result = JSON.parse(res.text) as Record<string, unknown>;
      pair.state = "completed";
      pair.samples = 1;
      pair.lastResult = result;
      if (result.success === true) pair.successes = 1;
      else pair.lastError = typeof result.error === "string" && result.error ? result.error : "failed";
      if (type === "mtr" && this.o.eventsFed?.() !== true)
        await this.o.mtr.record(a.nodeName, def.target.name, result, "schedule", this.o.scheduler.now());
    }
    return { type, target, pairs, error: null };
  }

  private async judge(input: ScheduleInput): Promise<void> {
    const def = (await this.o.catalog.listChecks()).find((c) => c.id === input.definitionId);
    if (!def) throw new UnprocessableError("definitionId: no such check definition");
    const why = kindProblem(input.kind, def.type);
    if (why) throw new UnprocessableError(why);
    if (!input.enabled) return;
    const p = await this.o.catalog.projection({ ...def, name: def.name, enabled: true });
    if (!p.runnable)
      throw new UnprocessableError(`no agent could run this schedule: ${p.reasons.join("; ")}`);
  }

  private async lockDefinition(tx: SqlExecutor, id: string): Promise<void> {
    const [d] = await tx.query("SELECT id FROM check_definitions WHERE id = $1 FOR SHARE", [id]);
    if (!d) throw new UnprocessableError("definitionId: no such check definition");
  }
}
