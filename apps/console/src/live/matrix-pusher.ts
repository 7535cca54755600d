/**
 * Matrix pushes (spec §6.2: while fed, the Matrix page stops polling): while any socket on this replica holds
 * `matrix`, every `intervalMs` (MATRIX_PUSH_EVERY_MS) the matrix of each protocol is read again (FleetService's
 * snapshot cache, so a replica costs Prometheus no more than one viewer polling) and the cells whose tier or
 * figures changed since the last read are pushed as one MatrixPush per protocol. The first read (when the topic
 * gets its first subscriber) is the baseline and pushes nothing: the page fetched the matrix itself. With no
 * subscriber left the baseline is dropped. A read that fails (no Prometheus, Prometheus down) pushes nothing and
 * keeps the baseline. Each replica computes its own pushes for its own sockets (nothing crosses the bus).
 */
import type { FleetMatrix, FleetProtocol, MatrixCell, MatrixPush } from "@svc/contract";
import type { ConsoleLogger } from "../log.ts";
import type { LiveHub } from "./hub.ts";
import { realTicker, type Ticker } from "./ticker.ts";

/**
 * Default period of matrix reads while someone holds the topic. The reads are served by FleetService's snapshot
 * cache, which bounds what they cost Prometheus (a snapshot is recomputed at most every max(2 s, 2 x its compute
 * time)); so the period only bounds how long a changed tier waits for its push after the snapshot saw it
 * (bench/detection: with 15 s, a red cell reached the page 19 s after the API).
 */
export const MATRIX_PUSH_EVERY_MS = 2_000;
/** Protocols pushed. */
export const MATRIX_PUSH_PROTOCOLS: readonly FleetProtocol[] = ["tcp", "udp", "icmp", "pmtu"];

/** Where matrices come from (FleetService). */
export interface MatrixSource {
  matrix(protocol: FleetProtocol): Promise<FleetMatrix>;
}

/** Options of MatrixPusher. */
export interface MatrixPusherOptions {
  hub: LiveHub;
  source: MatrixSource;
  log: ConsoleLogger;
  intervalMs?: number;
  every?: Ticker;
}

function cellKey(c: MatrixCell): string {
  return `${c.source}\u0000${c.destination}`;
}

function cellFigures(c: MatrixCell): string {
  return JSON.stringify([c.tier, c.failRatio, c.lossRatio, c.rttP95Seconds, c.pmtu]);
}

/** The cells of `next` that are new or whose tier or figures differ from `prev`. */
export function changedCells(prev: ReadonlyMap<string, string>, next: readonly MatrixCell[]): MatrixCell[] {
  return next.filter((c) => prev.get(cellKey(c)) !== cellFigures(c));
}

/** Pushes matrix changes to the `matrix` topic of one replica. */
export class MatrixPusher {
  private readonly baselines = new Map<FleetProtocol, Map<string, string>>();
  private stopTimer: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private generation = 0;

  constructor(private readonly opts: MatrixPusherOptions) {
    opts.hub.onActive((topic) => {
      if (topic === "matrix" && this.stopTimer) void this.tick();
    });
  }

  start(): void {
    if (this.stopTimer) return;
    const every = this.opts.every ?? realTicker;
    this.stopTimer = every(this.opts.intervalMs ?? MATRIX_PUSH_EVERY_MS, () => {
      void this.tick();
    });
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
    this.generation++;
  }

  /** One read and push (what the timer runs); resolves when done. A tick while one runs joins it. */
  tick(): Promise<void> {
    if (this.opts.hub.subscribers("matrix") === 0) {
      this.baselines.clear();
      return Promise.resolve();
    }
    if (!this.running) {
      const gen = this.generation;
      this.running = this.readAll(gen).finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private async readAll(gen: number): Promise<void> {
    for (const protocol of MATRIX_PUSH_PROTOCOLS) {
      let m: FleetMatrix;
      try {
        m = await this.opts.source.matrix(protocol);
      } catch (e) {
        this.opts.log.debug({ protocol, err: String(e) }, "matrix push: matrix unavailable");
        continue;
      }
      if (gen !== this.generation || this.opts.hub.subscribers("matrix") === 0) return;
      const prev = this.baselines.get(protocol);
      const next = new Map(m.cells.map((c) => [cellKey(c), cellFigures(c)]));
      this.baselines.set(protocol, next);
      if (!prev) continue;
      const cells = changedCells(prev, m.cells);
      if (cells.length === 0) continue;
      const push: MatrixPush = { protocol, generatedAt: m.generatedAt, cells };
      this.opts.hub.deliver("matrix", push);
    }
  }
}
