/**
 * The console's operations subsystem (issue 21): targets and check definitions (catalog.ts), the continuous
 * fan-out of enabled definitions to the controller, and diagnostics runs. Built by the server with the database
 * (none without one: the routes answer 503); start() once the store is ready, stop() before the database closes.
 */
import type { ConsoleConfig } from "../config/schema.ts";
import { ControllerClient } from "../fleet/controller-client.ts";
import type { ConsoleLogger } from "../log.ts";
import type { Db } from "../store/db.ts";
import { Catalog } from "./catalog.ts";

/** Dependencies of the operations subsystem. */
export interface OperationsOptions {
  config: ConsoleConfig;
  db: Db;
  now: () => number;
  log: ConsoleLogger;
}

/** Targets, check definitions, fan-out and runs. */
export class Operations {
  readonly controller: ControllerClient;
  readonly catalog: Catalog;

  constructor(o: OperationsOptions) {
    this.controller = new ControllerClient({
      url: o.config.controller.url,
      timeoutMs: o.config.controller.timeout,
    });
    this.catalog = new Catalog({
      db: o.db,
      now: o.now,
      liveAgents: async () => (await this.controller.topology()).agents,
    });
  }

  /** Starts the background work (fan-out, run recovery). */
  start(): void {}

  /** Stops the background work. */
  async stop(): Promise<void> {}
}
