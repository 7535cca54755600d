/**
 * The console's operations subsystem (issue 21): targets and check definitions (catalog.ts), the continuous
 * fan-out of enabled definitions to the controller (fanout.ts), and diagnostics runs. Built by the server with the
 * database (none without one: the routes answer 503); start() once the store is ready, stop() before the database
 * closes.
 */
import type { ConsoleConfig } from "../config/schema.ts";
import { type Scheduler, wallClock } from "../events/ingester.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import { realTicker, type Ticker } from "../live/ticker.ts";
import type { ConsoleLogger } from "../log.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import { MtrHistory } from "../runs/mtr-history.ts";
import { Runs } from "../runs/runs.ts";
import type { Db } from "../store/db.ts";
import { Catalog } from "./catalog.ts";
import { ExternalFanout } from "./fanout.ts";
import { Schedules } from "./schedules.ts";

/** Dependencies of the operations subsystem. */
export interface OperationsOptions {
  config: ConsoleConfig;
  db: Db;
  now: () => number;
  log: ConsoleLogger;
  metrics: ConsoleMetrics;
  /** periodic work (virtual in tests) */
  every?: Ticker;
  /** fan-out re-send period (15 s) */
  resyncMs?: number;
  /** fan-out body budget (8 MiB) */
  maxBytes?: number;
  /** pushes on a live topic (`run:{id}`) */
  publish: (topic: string, data: unknown) => void;
  /** run timing (virtual in tests) */
  scheduler?: Scheduler;
  /** run lease (60 s) */
  runLeaseMs?: number;
}

/** Targets, check definitions, fan-out and runs. */
export class Operations {
  readonly controller: ControllerClient;
  readonly catalog: Catalog;
  readonly fanout: ExternalFanout;
  readonly runs: Runs;
  readonly mtr: MtrHistory;
  readonly schedules: Schedules;
  private started = false;

  constructor(o: OperationsOptions) {
    this.controller = new ControllerClient({
      url: o.config.controller.url,
      timeoutMs: o.config.controller.timeout,
    });
    this.catalog = new Catalog({
      db: o.db,
      now: o.now,
      liveAgents: async () => (await this.controller.topology()).agents,
      changed: () => {
        if (this.started) void this.fanout.sync();
      },
    });
    this.fanout = new ExternalFanout({
      definitions: () => this.catalog.enabledDefinitions(),
      controller: this.controller,
      every: o.every ?? realTicker,
      log: o.log,
      skipped: (n) => o.metrics.externalSpecsSkipped.inc({ reason: "over-budget" }, n),
      resyncMs: o.resyncMs,
      maxBytes: o.maxBytes,
    });
    this.mtr = new MtrHistory(o.db);
    this.runs = new Runs({
      db: o.db,
      scheduler: o.scheduler ?? wallClock,
      diagnostics: (body) => this.controller.diagnostics(body),
      publish: o.publish,
      log: o.log,
      leaseMs: o.runLeaseMs,
      mtrCompleted: async (pair, result, at) => {
        await this.mtr.record(pair.source, pair.destination, result, "run", at);
      },
    });
    this.schedules = new Schedules({
      db: o.db,
      scheduler: o.scheduler ?? wallClock,
      catalog: this.catalog,
      controller: this.controller,
      mtr: this.mtr,
      log: o.log,
    });
  }

  /** Starts the background work (fan-out, run recovery); nothing is sent without a controller URL. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.controller.configured) this.fanout.start();
    this.runs.start();
    if (this.controller.configured) this.schedules.start();
  }

  /** Stops the background work. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([this.fanout.stop(), this.runs.stop(), this.schedules.stop()]);
  }
}
