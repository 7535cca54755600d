/**
 * The console's operations subsystem (issue 21): targets and check definitions (catalog.ts), the continuous
 * fan-out of enabled definitions to the controller (fanout.ts), and diagnostics runs. Built by the server with the
 * database (none without one: the routes answer 503); start() once the store is ready, stop() before the database
 * closes.
 */
import type { ConsoleConfig } from "../config/schema.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import { realTicker, type Ticker } from "../live/ticker.ts";
import type { ConsoleLogger } from "../log.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import type { Db } from "../store/db.ts";
import { Catalog } from "./catalog.ts";
import { ExternalFanout } from "./fanout.ts";

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
}

/** Targets, check definitions, fan-out and runs. */
export class Operations {
  readonly controller: ControllerClient;
  readonly catalog: Catalog;
  readonly fanout: ExternalFanout;
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
  }

  /** Starts the background work (fan-out, run recovery); nothing is sent without a controller URL. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.controller.configured) this.fanout.start();
  }

  /** Stops the background work. */
  async stop(): Promise<void> {
    this.started = false;
    await this.fanout.stop();
  }
}
