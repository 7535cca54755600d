import { performance } from "node:perf_hooks";
import type { MtrChecker } from "@svc/core";
import type { MetricsPeer, ProbeMetrics } from "../metrics/probe-metrics.ts";
import { type MtrProbeTarget, type MtrResult, probeMtr } from "../probes/mtr.ts";

/** The peer fields a reactive trace needs. */
export type MtrPeer = MetricsPeer & { address: string };

/** Options of MtrTrigger. */
export interface MtrTriggerOptions {
  metrics: ProbeMetrics;
  /** checkers.mtr: cooldown (ms) and maxHops */
  config: MtrChecker;
  /** the tracer; default probeMtr */
  probe?: (t: MtrProbeTarget) => Promise<MtrResult>;
  /** trace shape; defaults 10 rounds, 1000 ms apart, 1000 ms per probe */
  rounds?: number;
  intervalMs?: number;
  timeoutMs?: number;
  /** monotonic clock, ms; default performance.now */
  now?: () => number;
  /** called with every completed trace that was recorded */
  onTrace?: (peer: MtrPeer, result: MtrResult) => void;
  /** traces running at once, all peers together; default MTR_MAX_CONCURRENT */
  maxConcurrent?: number;
}

/**
 * Reactive traces running at once. A trace sends maxHops probes a round; when many peers fail together (a node's
 * uplink dies, or the agent itself is starved) unbounded traces would flood the path and stall the agent, which
 * fails more probes and starts more traces.
 */
export const MTR_MAX_CONCURRENT = 4;

/**
 * Reactive MTR: when a tcp, udp or icmp probe to a peer fails, trace the path to it, at most once per pair per
 * `checkers.mtr.cooldown` (counted from the trigger), never two traces to one peer at once, and at most
 * `maxConcurrent` traces in all (a failure while that many run is not traced and does not start the cooldown,
 * so the next failure to that peer may trace). A trigger
 * increments mtr_triggered_total at once; the completed trace replaces the peer's mtr_hops and
 * mtr_hop_rtt_seconds series, unless the peer left meanwhile (forget()), in which case it is dropped.
 */
export class MtrTrigger {
  readonly #o: MtrTriggerOptions;
  readonly #probe: (t: MtrProbeTarget) => Promise<MtrResult>;
  readonly #now: () => number;
  #config: MtrChecker;
  /** node name -> time of the last trigger */
  readonly #last = new Map<string, number>();
  /** node name -> the running trace and whether its result is still wanted */
  readonly #running = new Map<string, { done: Promise<void>; wanted: boolean; abort: AbortController }>();
  readonly #results = new Map<string, MtrResult>();

  constructor(options: MtrTriggerOptions) {
    this.#o = options;
    this.#probe = options.probe ?? probeMtr;
    this.#now = options.now ?? (() => performance.now());
    this.#config = options.config;
  }

  /**
   * A probe to peer failed: starts a trace unless one is running for the peer or the last trigger was less
   * than cooldown ago. Returns whether a trace started.
   */
  onProbeFailure(peer: MtrPeer): boolean {
    if (this.#running.has(peer.nodeName)) return false;
    if (this.#running.size >= (this.#o.maxConcurrent ?? MTR_MAX_CONCURRENT)) return false;
    const now = this.#now();
    const last = this.#last.get(peer.nodeName);
    if (last !== undefined && now - last < this.#config.cooldown) return false;
    this.#last.set(peer.nodeName, now);
    this.#o.metrics.recordMtrTriggered(peer);
    const entry = { done: Promise.resolve(), wanted: true, abort: new AbortController() };
    entry.done = this.#probe({
      signal: entry.abort.signal,
      address: peer.address,
      maxHops: this.#config.maxHops,
      rounds: this.#o.rounds ?? 10,
      intervalMs: this.#o.intervalMs ?? 1000,
      timeoutMs: this.#o.timeoutMs ?? 1000,
    })
      .then((result) => {
        if (!entry.wanted) return;
        this.#results.set(peer.nodeName, result);
        this.#o.metrics.recordMtr(peer, result.hops);
        this.#o.onTrace?.(peer, result);
      })
      .catch(() => {
        // probeMtr never rejects; an injected tracer that does records nothing
      })
      .finally(() => this.#running.delete(peer.nodeName));
    this.#running.set(peer.nodeName, entry);
    return true;
  }

  /** Hot reload of checkers.mtr: a new cooldown applies to the next trigger, maxHops to the next trace. */
  applyConfig(config: MtrChecker): void {
    this.#config = config;
  }

  /** The peer left: its running trace (if any) is aborted, not recorded, and its cooldown is forgotten. */
  forget(nodeName: string): void {
    const r = this.#running.get(nodeName);
    if (r) {
      r.wanted = false;
      r.abort.abort();
    }
    this.#last.delete(nodeName);
    this.#results.delete(nodeName);
  }

  /** The last recorded trace toward a peer. */
  lastResult(nodeName: string): MtrResult | undefined {
    return this.#results.get(nodeName);
  }

  /** Peers with a trace in flight. */
  running(): string[] {
    return [...this.#running.keys()];
  }

  /** Aborts the running traces and waits for them; results are dropped (later triggers still trace). */
  async stop(): Promise<void> {
    for (const r of this.#running.values()) {
      r.wanted = false;
      r.abort.abort();
    }
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }
}
