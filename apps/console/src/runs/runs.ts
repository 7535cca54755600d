/**
 * Diagnostics runs (spec §3.7, §4.3): stored in the console database, executed by the replica that created them.
 * Each round probes every pair not yet failed through the controller's diagnostics route (at most `concurrency`
 * at once); the next round starts at its planned time (or when the previous one ended, if later), so a pair gets
 * exactly its planned samples. After every round the run row and its progress on `run:{id}` are updated.
 *
 * Pairs: `pending` until the controller first answers 200 for it (`dispatched`), `completed` after its last
 * sample, `failed` when the controller refuses it (400, 404, 413, 501: another probe will not help); a 5xx or an
 * unreachable controller costs that sample only. The run ends `completed`, `partial` (some pairs failed), `failed`
 * (all failed) or `interrupted`.
 *
 * Restarts: the executing replica holds a lease on each of its running runs (renewed every leaseMs/3); any
 * replica's sweep (at start and every leaseMs/3) ends a running run whose lease lapsed as `interrupted`, so a run
 * in flight when its console stopped ends within one lease instead of hanging. stop() ends this replica's own
 * runs `interrupted` at once. All timing goes through the injected Scheduler (virtual in tests).
 *
 * Schedules' rounds are stored here too, ended (recordScheduled, `origin: "schedule"`), and purged past the history
 * retention (purgeScheduled); runs started by hand are operators' records and are kept.
 */
import { randomUUID } from "node:crypto";
import type { Run, RunPair, RunProbeType, RunRef, RunSpec, RunStatus, StoredRunSpec } from "@svc/contract";
import { NotFoundError } from "../errors.ts";
import type { Scheduler } from "../events/ingester.ts";
import type { DiagnosticsAnswer } from "../fleet/controller-client.ts";
import type { ConsoleLogger } from "../log.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row } from "../store/db.ts";
import { json, num } from "../store/rows.ts";
import { expandRun } from "./expand.ts";

const NS_PER_MS = 1_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Controller answers that refuse a pair for good. */
const REFUSED = new Set([400, 404, 413, 501]);

function toRun(r: Row): Run {
  const spec = json<StoredRunSpec>(r.spec);
  const run: Run = {
    id: String(r.id),
    status: String(r.status) as RunStatus,
    spec,
    createdBy: String(r.created_by),
    createdAt: iso(num(r.created_at)),
    finishedAt: r.finished_at === null || r.finished_at === undefined ? null : iso(num(r.finished_at)),
    pairs: json<RunPair[]>(r.pairs),
    origin: String(r.origin ?? "manual") === "schedule" ? "schedule" : "manual",
    schedule: r.schedule === null || r.schedule === undefined ? null : json<RunRef>(r.schedule),
    target: r.target === null || r.target === undefined ? null : json<RunRef>(r.target),
    error: r.error === null || r.error === undefined ? null : String(r.error),
  };
  if (spec.plannedSampleIntervalNs !== undefined) run.plannedSampleIntervalNs = spec.plannedSampleIntervalNs;
  if (spec.plannedSamplesPerPair !== undefined) run.plannedSamplesPerPair = spec.plannedSamplesPerPair;
  return run;
}

/** Dependencies of the run engine. */
export interface RunsOptions {
  db: Db;
  scheduler: Scheduler;
  /** POST /api/v1/diagnostics with a body; throws when the controller cannot be reached */
  diagnostics: (body: unknown) => Promise<DiagnosticsAnswer>;
  /** pushes a run's progress on `run:{id}` */
  publish: (topic: string, data: unknown) => void;
  log: ConsoleLogger;
  /** a completed mtr trace (for the path history) */
  mtrCompleted?: (pair: RunPair, result: Record<string, unknown>, at: number) => Promise<void>;
  leaseMs?: number;
  concurrency?: number;
}

interface Active {
  run: Run;
  round: number;
  rounds: number;
  intervalMs: number;
  startedAt: number;
  timer: { cancel(): void } | undefined;
  busy: Promise<void> | undefined;
}

/** One ended round of a schedule, as Runs.recordScheduled stores it. */
export interface ScheduledRound {
  type: RunProbeType;
  schedule: RunRef;
  target: RunRef | null;
  /** one pair per agent asked, its destination the target's name */
  pairs: RunPair[];
  /** why the round could not probe at all, else null */
  error: string | null;
  startedAt: number;
  finishedAt: number;
}

/** A finished run's status from its pairs: completed when none failed, failed when all (or none ran), else partial. */
export function endStatus(pairs: readonly RunPair[]): RunStatus {
  const failed = pairs.filter((p) => p.state === "failed").length;
  return pairs.length === 0 || failed === pairs.length ? "failed" : failed === 0 ? "completed" : "partial";
}

/** Creates, executes, lists and recovers runs. */
export class Runs {
  private readonly active = new Map<string, Active>();
  private readonly waiters = new Map<string, ((run: Run) => void)[]>();
  private sweepTimer: { cancel(): void } | undefined;
  private stopped = true;
  private readonly leaseMs: number;

  constructor(private readonly o: RunsOptions) {
    this.leaseMs = o.leaseMs ?? 60_000;
  }

  /** Ends runs whose lease lapsed, now and every leaseMs/3; renews this replica's leases. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.sweep().catch((e: unknown) => this.o.log.warn({ err: String(e) }, "run sweep failed"));
      this.sweepTimer = this.o.scheduler.schedule(this.o.scheduler.now() + this.leaseMs / 3, tick);
    };
    tick();
  }

  /** Stops executing: this replica's running runs end `interrupted`. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sweepTimer?.cancel();
    const runs = [...this.active.values()];
    for (const a of runs) a.timer?.cancel();
    await Promise.allSettled(runs.map((a) => a.busy));
    for (const a of runs) {
      if (!this.active.has(a.run.id)) continue;
      this.active.delete(a.run.id);
      await this.finish(a, "interrupted").catch(() => {});
    }
  }

  /** Resolves when no round of any run is in flight (tests advance virtual time between rounds). */
  async settled(): Promise<void> {
    for (;;) {
      const busy = [...this.active.values()].map((a) => a.busy).filter((b) => b !== undefined);
      if (busy.length === 0) return;
      await Promise.allSettled(busy);
    }
  }

  /** Ends lapsed runs of any replica; renews this replica's leases. Resolves with the runs it ended. */
  async sweep(): Promise<number> {
    const now = this.o.scheduler.now();
    const mine = [...this.active.keys()];
    if (mine.length > 0)
      await this.o.db.query("UPDATE runs SET lease_until = $2 WHERE id = ANY($1::text[])", [
        mine,
        now + this.leaseMs,
      ]);
    const ended = await this.o.db.query(
      `UPDATE runs SET status = 'interrupted', finished_at = $1, lease_until = NULL
       WHERE status = 'running' AND (lease_until IS NULL OR lease_until < $1) AND NOT (id = ANY($2::text[]))
       RETURNING *`,
      [now, mine],
    );
    for (const r of ended) this.o.publish(`run:${String(r.id)}`, toRun(r));
    return ended.length;
  }

  /** Expands `spec` (422 when it cannot), stores the run with its audit row, and starts it. */
  async create(spec: RunSpec, actor: AuditActor): Promise<Run> {
    const stored = expandRun(spec);
    const now = this.o.scheduler.now();
    const pairs: RunPair[] = stored.pairs.map((p) => ({
      ...p,
      state: "pending",
      samples: 0,
      successes: 0,
      lastError: null,
      lastStatus: null,
      lastResult: null,
    }));
    const run = await this.o.db.transaction(async (tx) => {
      const [r] = await tx.query(
        `INSERT INTO runs (id, spec, status, created_by, created_at, pairs, lease_until)
         VALUES ($1, $2::jsonb, 'running', $3, $4, $5::jsonb, $6) RETURNING *`,
        [
          randomUUID(),
          JSON.stringify(stored),
          actor.subjectDisplay,
          now,
          JSON.stringify(pairs),
          now + this.leaseMs,
        ],
      );
      if (!r) throw new Error("insert returned no row");
      const run = toRun(r);
      await insertAudit(
        tx,
        allowedRow(actor, now, { runId: run.id, type: stored.type, pairs: stored.pairs.length }),
      );
      return run;
    });
    const intervalMs = (stored.plannedSampleIntervalNs ?? 0) / NS_PER_MS;
    const a: Active = {
      run,
      round: 0,
      rounds: stored.plannedSamplesPerPair ?? 1,
      intervalMs,
      startedAt: now,
      timer: undefined,
      busy: undefined,
    };
    if (this.stopped) {
      await this.finish(a, "interrupted");
      return a.run;
    }
    this.active.set(run.id, a);
    this.o.publish(`run:${run.id}`, run);
    this.schedule(a, now);
    return structuredClone(run);
  }

  /** Resolves with the run once it ended (at once when it already has); rejects for an unknown id. */
  async done(id: string): Promise<Run> {
    if (this.active.has(id))
      return new Promise((resolve) => {
        const list = this.waiters.get(id) ?? [];
        list.push(resolve);
        this.waiters.set(id, list);
      });
    return this.get(id);
  }

  /**
   * Stores a schedule's ended round as a run (`origin: "schedule"`, created by `schedule "<name>"`): the runs list,
   * the pages reading it and the investigation then show what the schedule did. Not audited (nobody acted).
   */
  async recordScheduled(round: ScheduledRound): Promise<Run> {
    const spec: StoredRunSpec = {
      type: round.type,
      pairs: round.pairs.map((p) => ({ source: p.source, destination: p.destination })),
      durationSeconds: 0,
    };
    const [r] = await this.o.db.query(
      `INSERT INTO runs (id, spec, status, created_by, created_at, finished_at, pairs, origin, schedule, target, error)
       VALUES ($1, $2::jsonb, $3, $4, $5, $6, $7::jsonb, 'schedule', $8::jsonb, $9::jsonb, $10) RETURNING *`,
      [
        randomUUID(),
        JSON.stringify(spec),
        endStatus(round.pairs),
        `schedule ${JSON.stringify(round.schedule.name)}`,
        round.startedAt,
        round.finishedAt,
        JSON.stringify(round.pairs),
        JSON.stringify(round.schedule),
        round.target === null ? null : JSON.stringify(round.target),
        round.error,
      ],
    );
    if (!r) throw new Error("insert returned no row");
    return toRun(r);
  }

  /** Deletes the schedules' rounds created before `cutoff` (the history retention); resolves with how many. */
  async purgeScheduled(cutoff: number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = (
        await this.o.db.query(
          `DELETE FROM runs WHERE id IN (
             SELECT id FROM runs WHERE origin = 'schedule' AND created_at < $1 LIMIT 10000) RETURNING 1`,
          [cutoff],
        )
      ).length;
      total += n;
      if (n < 10_000) return total;
    }
  }

  async list(limit: number): Promise<Run[]> {
    const rows = await this.o.db.query("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT $1", [
      limit,
    ]);
    return rows.map(toRun);
  }

  async get(id: string): Promise<Run> {
    const [r] = await this.o.db.query("SELECT * FROM runs WHERE id = $1", [id]);
    if (!r) throw new NotFoundError("no such run");
    return toRun(r);
  }

  private schedule(a: Active, at: number): void {
    a.timer = this.o.scheduler.schedule(at, () => {
      a.timer = undefined;
      a.busy = this.round(a)
        .catch((e: unknown) => this.o.log.warn({ err: String(e), run: a.run.id }, "run round failed"))
        .finally(() => {
          a.busy = undefined;
        });
    });
  }

  private async round(a: Active): Promise<void> {
    const todo = a.run.pairs.filter((p) => p.state !== "failed");
    let next = 0;
    const worker = async () => {
      for (;;) {
        const p = todo[next++];
        if (!p) return;
        await this.probe(a, p);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency ?? 8, todo.length) }, worker));
    a.round++;
    if (this.stopped || !this.active.has(a.run.id)) return;
    const last = a.round >= a.rounds || a.run.pairs.every((p) => p.state === "failed");
    if (last) {
      this.active.delete(a.run.id);
      // a pair the controller never answered for (unreachable every time) took no sample: failed, not completed
      for (const p of a.run.pairs) if (p.state !== "failed") p.state = p.samples > 0 ? "completed" : "failed";
      await this.finish(a, endStatus(a.run.pairs));
      return;
    }
    await this.persist(a);
    this.schedule(a, Math.max(a.startedAt + a.round * a.intervalMs, this.o.scheduler.now()));
  }

  private async probe(a: Active, p: RunPair): Promise<void> {
    const body = { source: p.source, destination: p.destination, type: a.run.spec.type };
    let res: DiagnosticsAnswer;
    try {
      res = await this.o.diagnostics(body);
    } catch (e) {
      p.lastError = e instanceof Error ? e.message : String(e);
      p.lastStatus = null;
      return;
    }
    p.lastStatus = res.status;
    if (res.status === 200) {
      let result: Record<string, unknown> | null = null;
      try {
        result = JSON.parse(res.text) as Record<string, unknown>;
      } catch {
        p.lastError = "controller answered 200 without a CheckResult";
        return;
      }
      p.state = "dispatched";
      p.samples++;
      if (result.success === true) p.successes++;
      p.lastResult = result;
      p.lastError = typeof result.error === "string" && result.error !== "" ? result.error : null;
      if (a.run.spec.type === "mtr" && this.o.mtrCompleted)
        await this.o
          .mtrCompleted(p, result, this.o.scheduler.now())
          .catch((e: unknown) => this.o.log.warn({ err: String(e) }, "mtr snapshot not stored"));
      return;
    }
    p.lastError = `controller answered ${res.status}: ${res.text.slice(0, 300)}`;
    if (REFUSED.has(res.status)) p.state = "failed";
  }

  private async persist(a: Active): Promise<void> {
    await this.o.db.query("UPDATE runs SET pairs = $2::jsonb, lease_until = $3 WHERE id = $1", [
      a.run.id,
      JSON.stringify(a.run.pairs),
      this.o.scheduler.now() + this.leaseMs,
    ]);
    this.o.publish(`run:${a.run.id}`, a.run);
  }

  private async finish(a: Active, status: RunStatus): Promise<void> {
    const now = this.o.scheduler.now();
    a.run.status = status;
    a.run.finishedAt = iso(now);
    await this.o.db.query(
      "UPDATE runs SET status = $2, finished_at = $3, pairs = $4::jsonb, lease_until = NULL WHERE id = $1",
      [a.run.id, status, now, JSON.stringify(a.run.pairs)],
    );
    this.o.publish(`run:${a.run.id}`, a.run);
    const waiting = this.waiters.get(a.run.id) ?? [];
    this.waiters.delete(a.run.id);
    for (const w of waiting) w(structuredClone(a.run));
  }
}
