/**
 * The console's operations subsystem (issue 21): targets and check definitions (catalog.ts), the continuous
 * fan-out of enabled definitions to the controller (fanout.ts), and diagnostics runs. Built by the server with the
 * database (none without one: the routes answer 503); start() once the store is ready, stop() before the database
 * closes.
 */
import type { FeedEvent } from "@svc/contract";
import type { ConsoleConfig } from "../config/schema.ts";
import { type Scheduler, wallClock } from "../events/ingester.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import type { FeedSink } from "../live/feed-sink.ts";
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
  /**
   * true while the controller event stream feeds this console: then every trace arrives as an MTRCompleted event
   * and runs and schedules leave the path history to it (one trace, one count)
   */
  eventsFed?: () => boolean;
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
  private readonly log: ConsoleLogger;

  constructor(o: OperationsOptions) {
    this.log = o.log;
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
        if (o.eventsFed?.() === true) return;
        await this.mtr.record(pair.source, pair.destination, result, "run", at);
      },
    });
    this.schedules = new Schedules({
      db: o.db,
      scheduler: o.scheduler ?? wallClock,
      catalog: this.catalog,
      controller: this.controller,
      mtr: this.mtr,
      runs: this.runs,
      log: o.log,
      eventsFed: o.eventsFed,
    });
  }

  /**
   * `inner` plus the MTR path history: every MTRCompleted event the controller stream brings (reactive traces and
   * diagnostics) is recorded as a trace of its pair at the event's time.
   */
  withMtrHistory(inner: FeedSink): FeedSink {
    return {
      event: (e: FeedEvent) => {
        inner.event(e);
        if (e.type !== "MTRCompleted") return;
        const { source, destination } = e.payload;
        if (typeof source !== "string" || typeof destination !== "string") return;
        this.mtr
          .record(source, destination, e.payload, "reactive", Date.parse(e.at))
          .catch((err: unknown) => this.log.warn({ err: String(err) }, "mtr path not stored"));
      },
      fed: (fed, at) => inner.fed(fed, at),
      missed: (n) => inner.missed(n),
    };
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
