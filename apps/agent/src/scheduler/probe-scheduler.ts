import type { Checkers } from "@svc/core";
import { type Peer, type Plane, runsPlane } from "@svc/protocol";
import { BATCH_GRID_MS, CoalescingClock, type ProbeClock } from "../clock/probe-clock.ts";
import type { ProbeMetrics } from "../metrics/probe-metrics.ts";
import { MtrTrigger, type MtrTriggerOptions } from "../mtr/mtr-trigger.ts";
import type { MtrResult } from "../probes/mtr.ts";
import { LatenessRecorder, type LatenessSummary } from "./lateness.ts";
import { MTR_TRIGGER_PLANES, PEER_PLANES, type PeerPlane, probePeer } from "./peer-probe.ts";
import { PeriodicTask } from "./periodic-task.ts";
import { defaultProbers, type Probers } from "./probers.ts";

/** The checkers the scheduler runs (pmtu off and mtr at its defaults when absent). */
export type ScheduledCheckers = Pick<Checkers, "tcp" | "udp" | "icmp" | "dns" | "http"> &
  Partial<Pick<Checkers, "pmtu" | "mtr">>;

/** checkers.mtr defaults (spec §8.2). */
const MTR_DEFAULTS = { cooldown: 60_000, maxHops: 30 };

export interface ProbeSchedulerOptions {
  metrics: ProbeMetrics;
  /** our own node name: never probed */
  selfNodeName: string;
  /** our own configured ports, the fallbacks for peers that reported none (tcp -> httpPort, udp -> grpcPort) */
  ports: { httpPort: number; grpcPort: number };
  checkers: ScheduledCheckers;
  /** missing entries default to this package's probes; icmp has no default (icmp does not run without one) */
  probers?: Partial<Probers>;
  /** [0,1) source for start jitter; default Math.random */
  random?: () => number;
  /** the clock probe starts are scheduled on; default a CoalescingClock of the scheduler's own */
  clock?: ProbeClock;
  /** reactive trace shape (rounds, spacing, per-probe timeout) and a hook for each recorded trace */
  mtr?: Pick<MtrTriggerOptions, "rounds" | "intervalMs" | "timeoutMs" | "onTrace" | "now">;
}

/**
 * A probe start may run up to this much before its planned time (or a tenth of the interval, if less): one tick
 * of the batch grid, so a start can always join the batch of the tick before it.
 */
const START_EARLY_MS = BATCH_GRID_MS;

const GLOBAL_PLANES = ["dns", "http"] as const;
type GlobalPlane = (typeof GLOBAL_PLANES)[number];
/** planes reported in probe_intended */
const INTENDED_PLANES: Plane[] = ["tcp", "udp", "icmp", "pmtu"];

/**
 * Runs the tcp/udp/icmp/pmtu checkers against every probed peer (each on the peers that run that plane; pmtu
 * only where `plane:pmtu` is advertised or no plane is, spec §2.2) and the dns/http checkers once per interval.
 * A failed tcp, udp or icmp probe triggers a reactive trace to the peer (MtrTrigger: once per pair per
 * checkers.mtr.cooldown).
 * Scheduling: every (checker, peer) pair — and the dns and http checkers — is its own periodic task whose first
 * start is a uniformly random phase in [0, interval). That is the per-checker start jitter and also spreads the
 * peers of one checker over the whole interval, so 1000 peers cost ~1000/interval probes per second instead of
 * one burst. Starts share wake-ups: a start may run up to 100 ms (at most a tenth of the interval) before its
 * planned time when something else is due then (CoalescingClock); its lateness is then 0. A tick whose
 * previous probe of the same checker and peer is still running is skipped.
 * Results are recorded only if the pair is still scheduled when the probe completes, and under the peer's
 * labels at that moment. Until start() nothing runs; setPeers/applyConfig may be called at any time.
 */
export class ProbeScheduler {
  readonly #o: ProbeSchedulerOptions;
  readonly #probers: Probers;
  readonly #random: () => number;
  readonly #clock: ProbeClock;
  #checkers: ScheduledCheckers;
  /** probed peers by node name */
  #peers = new Map<string, Peer>();
  #planned: Set<string> | undefined;
  readonly #tasks = new Map<string, PeriodicTask>();
  readonly #inflight = new Map<string, Promise<void>>();
  readonly #lateness = new LatenessRecorder();
  readonly #mtr: MtrTrigger | undefined;
  #started = false;
  #skipped = 0;

  constructor(options: ProbeSchedulerOptions) {
    this.#o = options;
    this.#probers = { ...defaultProbers(), ...options.probers };
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? new CoalescingClock();
    this.#checkers = options.checkers;
    const tracer = this.#probers.mtr;
    if (tracer) {
      this.#mtr = new MtrTrigger({
        ...options.mtr,
        metrics: options.metrics,
        config: options.checkers.mtr ?? MTR_DEFAULTS,
        probe: (t) => tracer.probe(t),
      });
    }
  }

  /**
   * Replaces the peer set. `plannedNodeNames` undefined = full mesh (every peer probed); otherwise only those
   * are probed and probe_intended marks them. Every series of a peer no longer probed is removed, and a peer
   * whose zone changed loses its series (they carried the old zone).
   */
  setPeers(peers: readonly Peer[], plannedNodeNames?: readonly string[] | undefined): void {
    this.#planned = plannedNodeNames === undefined ? undefined : new Set(plannedNodeNames);
    const next = new Map<string, Peer>();
    for (const p of peers) {
      if (p.nodeName === this.#o.selfNodeName) continue;
      if (this.#planned && !this.#planned.has(p.nodeName)) continue;
      next.set(p.nodeName, p);
    }
    for (const [name, old] of this.#peers) {
      const now = next.get(name);
      if (!now || now.zone !== old.zone || now.address !== old.address) this.#mtr?.forget(name);
      if (!now || now.zone !== old.zone) this.#o.metrics.removePeer(name);
    }
    this.#peers = next;
    this.#reconcile();
  }

  /** Hot reload of checkers.*: interval/enable changes reschedule; timeouts and packets apply on the next probe. */
  applyConfig(checkers: ScheduledCheckers): void {
    const old = this.#checkers;
    this.#checkers = checkers;
    for (const plane of [...PEER_PLANES, ...GLOBAL_PLANES]) {
      const was = old[plane];
      const is = checkers[plane];
      if (was?.enabled && !is?.enabled) this.#o.metrics.removePlane(plane);
      if (was?.interval !== is?.interval) this.#dropTasks((k) => k.startsWith(`${plane}\u0000`));
    }
    this.#mtr?.applyConfig(checkers.mtr ?? MTR_DEFAULTS);
    const key = (c: ScheduledCheckers) => JSON.stringify([c.dns.hosts, c.dns.resolvers, c.http.targets]);
    if (key(old) !== key(checkers)) {
      this.#o.metrics.removePlane("dns");
      this.#o.metrics.removePlane("http");
    }
    this.#reconcile();
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#reconcile();
  }

  /** Stops every timer and waits for in-flight probes (each is bounded by its timeout) and traces. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#dropTasks(() => true);
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
    await this.#mtr?.stop();
  }

  /** The last recorded reactive trace toward a peer (node name). */
  lastTrace(nodeName: string): MtrResult | undefined {
    return this.#mtr?.lastResult(nodeName);
  }

  /** Recent probe start lateness samples (actual start - planned start), ms, oldest first up to 10000. */
  latenessSamples(): number[] {
    return this.#lateness.samples();
  }

  latenessSummary(): LatenessSummary {
    return this.#lateness.summary();
  }

  /** Ticks skipped because the previous probe of the same checker and peer was still running. */
  get skippedTicks(): number {
    return this.#skipped;
  }

  /** Keys of the scheduled tasks, `plane\0nodeName` (nodeName "" for dns/http); for tests and diagnostics. */
  scheduled(): string[] {
    return [...this.#tasks.keys()].sort();
  }

  #enabled(plane: PeerPlane | GlobalPlane): boolean {
    const c = this.#checkers;
    if (!c[plane]?.enabled) return false;
    if (plane === "icmp") return this.#probers.icmp !== undefined;
    if (plane === "pmtu") return this.#probers.pmtu !== undefined;
    if (plane === "dns") return c.dns.hosts.length > 0;
    if (plane === "http") return c.http.targets.length > 0;
    return true;
  }

  #desired(): Set<string> {
    const want = new Set<string>();
    for (const plane of PEER_PLANES) {
      if (!this.#enabled(plane)) continue;
      for (const p of this.#peers.values())
        if (runsPlane(p.capabilities, plane)) want.add(`${plane}\u0000${p.nodeName}`);
    }
    for (const plane of GLOBAL_PLANES) if (this.#enabled(plane)) want.add(`${plane}\u0000`);
    return want;
  }

  #reconcile(): void {
    const want = this.#desired();
    for (const [key] of this.#tasks) {
      if (want.has(key)) continue;
      const [plane = "", name = ""] = key.split("\u0000");
      this.#dropTasks((k) => k === key);
      if (name && this.#peers.has(name)) this.#o.metrics.removePeerPlane(name, plane as Plane);
    }
    this.#updateIntended();
    if (!this.#started) return;
    for (const key of want) {
      if (this.#tasks.has(key)) continue;
      const [plane = "", name = ""] = key.split("\u0000");
      const interval = this.#checkers[plane as PeerPlane | GlobalPlane]?.interval ?? 60_000;
      const task = new PeriodicTask({
        intervalMs: interval,
        phaseMs: this.#random() * interval,
        clock: this.#clock,
        earlyMs: Math.min(START_EARLY_MS, interval / 10),
        tick: (lateness) => this.#tick(key, plane as PeerPlane | GlobalPlane, name, lateness),
      });
      this.#tasks.set(key, task);
      task.start();
    }
  }

  #updateIntended(): void {
    const on = (pl: Plane): boolean => this.#enabled(pl as PeerPlane);
    for (const p of this.#peers.values()) {
      const planes = this.#planned
        ? INTENDED_PLANES.filter((pl) => runsPlane(p.capabilities, pl) && on(pl))
        : [];
      this.#o.metrics.setIntended(p, planes);
    }
  }

  #dropTasks(match: (key: string) => boolean): void {
    for (const [key, task] of this.#tasks) {
      if (!match(key)) continue;
      task.stop();
      this.#tasks.delete(key);
    }
  }

  #tick(key: string, plane: PeerPlane | GlobalPlane, name: string, latenessMs: number): void {
    if (this.#inflight.has(key)) {
      this.#skipped++;
      return;
    }
    this.#lateness.add(latenessMs);
    const run = this.#run(key, plane, name)
      .catch(() => {
        // A prober that rejects is a bug in the prober; the scheduler keeps going and records nothing.
      })
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, run);
  }

  async #run(key: string, plane: PeerPlane | GlobalPlane, name: string): Promise<void> {
    const c = this.#checkers;
    const m = this.#o.metrics;
    const live = () => this.#tasks.has(key);
    if (plane === "dns") {
      const results = await this.#probers.dns.probe({
        hosts: c.dns.hosts,
        resolvers: c.dns.resolvers,
        timeoutMs: c.dns.timeout,
      });
      if (live()) for (const r of results) m.recordDns(r);
      return;
    }
    if (plane === "http") {
      const results = await this.#probers.http.probe({ targets: c.http.targets, timeoutMs: c.http.timeout });
      if (live()) for (const r of results) m.recordHttp(r);
      return;
    }
    const peer = this.#peers.get(name);
    if (!peer) return;
    const out = await probePeer(plane, peer, { checkers: c, probers: this.#probers, ports: this.#o.ports });
    const now = live() ? this.#peers.get(name) : undefined;
    if (!out || !now) return;
    out.record(m, now);
    if (!out.ok && MTR_TRIGGER_PLANES.includes(plane as PeerPlane)) this.#mtr?.onProbeFailure(now);
  }
}
