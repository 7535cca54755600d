import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import { type Logger, silentLogger } from "../logger.ts";
import { DEFAULT_LEASE_NAME } from "./election-env.ts";
import type { LeaderElector } from "./leader-elector.ts";

/** Options of {@link LeaseElector}. Durations in milliseconds; leaseDuration > renewDeadline > retryPeriod. */
export interface LeaseElectorOptions {
  kubeConfig: KubeConfig;
  /** this replica's holderIdentity; must differ between replicas (see electionIdentity()) */
  identity: string;
  /** namespace of the Lease; default `default` (see electionNamespace()) */
  namespace?: string;
  /** Lease name; default `svc-controller` */
  name?: string;
  /** how long a lease is honoured after its holder last renewed it, as candidates observe it; default 15 s */
  leaseDurationMs?: number;
  /** a leader that has not renewed for this long steps down; default 10 s */
  renewDeadlineMs?: number;
  /** interval between acquire/renew attempts; default 2 s */
  retryPeriodMs?: number;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  /** called when the observed holder changes (identity "" when released) */
  onNewLeader?: (identity: string) => void;
  logger?: Logger;
}

/** Options of {@link LeaseElector.stop}. */
export interface LeaseElectorStopOptions {
  /**
   * Give the Lease up (holderIdentity emptied) so another replica takes over at its next attempt; default true.
   * false only stops renewing, as a crashed process would: others take over once the lease expires.
   */
  release?: boolean;
}

interface Observed {
  resourceVersion: string;
  holder: string;
  /** monotonic ms when this version of the record was first seen */
  at: number;
  durationMs: number;
}

/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go's leaderelection does it: every retryPeriod
 * each replica reads the Lease; a replica takes it when it is free (absent: create; holderIdentity empty) or when
 * the record has not changed for leaseDuration of the candidate's own clock (no trust in other clocks), and the
 * holder renews it. Writes are PUTs carrying the read resourceVersion, so of two racing candidates one gets 409
 * and stays a candidate. A leader steps down (onStoppedLeading) when it has not renewed within renewDeadline or
 * sees another holder; isLeader() is false from that moment, even if a timer runs late. After stepping down it
 * keeps campaigning. The leader's renewal time is taken when the request is sent, so it stops leading before any
 * candidate can consider the lease expired (renewDeadline < leaseDuration).
 */
export class LeaseElector implements LeaderElector {
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  readonly #api: CoordinationV1Api;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #opts: LeaseElectorOptions;
  readonly #logger: Logger;
  #running = false;
  #leading = false;
  #renewedAt = 0;
  #observed: Observed | undefined;
  #lease: V1Lease | undefined;
  #timer: NodeJS.Timeout | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #inflight: Promise<void> | undefined;

  constructor(opts: LeaseElectorOptions) {
    this.#opts = opts;
    this.identity = opts.identity;
    this.namespace = opts.namespace ?? "default";
    this.name = opts.name ?? DEFAULT_LEASE_NAME;
    this.#leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    if (!(this.#leaseDurationMs > this.#renewDeadlineMs && this.#renewDeadlineMs > this.#retryPeriodMs)) {
      throw new Error("leader election needs leaseDuration > renewDeadline > retryPeriod");
    }
    if (this.identity === "") throw new Error("leader election needs a non-empty identity");
    this.#api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
    this.#logger = opts.logger ?? silentLogger;
  }

  isLeader(): boolean {
    return this.#leading && now() - this.#renewedAt < this.#renewDeadlineMs;
  }

  /** The holder this replica last observed ("" when free, undefined before the first read). */
  get observedLeader(): string | undefined {
    return this.#observed?.holder;
  }

  /** Begins campaigning; the first attempt is immediate. Calling it while running does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /**
   * Stops campaigning and renewing. If leading, onStoppedLeading runs; unless `release: false`, a Lease held by
   * this replica is then released (holderIdentity "", leaseDurationSeconds 1) once any attempt in flight has
   * settled. Resolves when done; never rejects (a failed release is logged, the lease then expires).
   */
  async stop(opts: LeaseElectorStopOptions = {}): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#inflight;
    this.#stepDown("stopped");
    // also when an attempt won the lease while stopping: #release() checks the last record holds our identity
    if (opts.release ?? true) await this.#release();
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#inflight = this.#attempt().finally(() => {
        this.#inflight = undefined;
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #attempt(): Promise<void> {
    const sentAt = now();
    let ok = false;
    try {
      ok = await withTimeout(this.#tryAcquireOrRenew(), this.#renewDeadlineMs);
    } catch (err) {
      this.#logger.debug({ err: String(err), lease: this.name }, "lease attempt failed");
    }
    if (!this.#running) return;
    if (ok) {
      this.#renewedAt = sentAt;
      this.#armDeadline();
      if (!this.#leading) {
        this.#leading = true;
        this.#logger.info(
          { identity: this.identity, lease: `${this.namespace}/${this.name}` },
          "became leader",
        );
        this.#opts.onStartedLeading?.();
      }
    } else if (this.#leading) {
      const other = this.#observed && this.#observed.holder !== this.identity;
      if (other) this.#stepDown(`lease taken by ${this.#observed?.holder || "nobody"}`);
      else if (now() - this.#renewedAt >= this.#renewDeadlineMs) this.#stepDown("renew deadline passed");
    }
    // candidates jitter their attempts (up to +20%) so replicas started together do not collide every period
    const jitter = this.#leading ? 0 : Math.random() * 0.2 * this.#retryPeriodMs;
    this.#schedule(this.#retryPeriodMs + jitter);
  }

  /** A leader steps down by itself when renewDeadline passes without a renewal, even while a request hangs. */
  #armDeadline(): void {
    clearTimeout(this.#deadline);
    // timers may fire a little early against performance.now(): re-arm until the deadline has really passed
    this.#deadline = setTimeout(
      () => {
        if (!this.#leading) return;
        if (now() - this.#renewedAt >= this.#renewDeadlineMs) this.#stepDown("renew deadline passed");
        else this.#armDeadline();
      },
      Math.max(1, Math.ceil(this.#renewedAt + this.#renewDeadlineMs - now())),
    );
    this.#deadline.unref();
  }

  #stepDown(reason: string): void {
    clearTimeout(this.#deadline);
    if (!this.#leading) return;
    this.#leading = false;
    this.#logger.warn({ identity: this.identity, reason }, "stopped leading");
    this.#opts.onStoppedLeading?.();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const ref = { name: this.name, namespace: this.namespace };
    let lease: V1Lease;
    try {
      lease = await this.#api.readNamespacedLease(ref);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
      const stamp = new V1MicroTime();
      const created = await this.#write(() =>
        this.#api.createNamespacedLease({
          namespace: this.namespace,
          body: {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name: this.name, namespace: this.namespace },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: this.#leaseSeconds(),
              acquireTime: stamp,
              renewTime: stamp,
              leaseTransitions: 0,
            },
          },
        }),
      );
      return created;
    }
    this.#observe(lease);
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder !== "" && holder !== this.identity && !this.#expired()) return false;
    const stamp = new V1MicroTime();
    const spec = { ...lease.spec, holderIdentity: this.identity, renewTime: stamp };
    spec.leaseDurationSeconds = this.#leaseSeconds();
    if (holder !== this.identity) {
      spec.acquireTime = stamp;
      spec.leaseTransitions = (lease.spec?.leaseTransitions ?? 0) + 1;
    }
    return this.#write(() =>
      this.#api.replaceNamespacedLease({
        ...ref,
        body: { ...lease, metadata: { ...lease.metadata, ...ref }, spec },
      }),
    );
  }

  /** Runs a create or update; true when it was accepted, false on 409 (someone else wrote first). */
  async #write(op: () => Promise<V1Lease>): Promise<boolean> {
    try {
      this.#observe(await op());
      return true;
    } catch (err) {
      if (statusCode(err) === 409) return false;
      throw err;
    }
  }

  #observe(lease: V1Lease): void {
    this.#lease = lease;
    const rv = lease.metadata?.resourceVersion ?? "";
    const holder = lease.spec?.holderIdentity ?? "";
    if (this.#observed?.resourceVersion === rv) return;
    const previous = this.#observed?.holder;
    this.#observed = {
      resourceVersion: rv,
      holder,
      at: now(),
      durationMs: (lease.spec?.leaseDurationSeconds ?? this.#leaseSeconds()) * 1000,
    };
    if (previous !== holder) {
      this.#logger.info({ leader: holder, lease: this.name }, "observed new leader");
      this.#opts.onNewLeader?.(holder);
    }
  }

  #expired(): boolean {
    const o = this.#observed;
    return o === undefined || now() >= o.at + o.durationMs;
  }

  #leaseSeconds(): number {
    return Math.max(1, Math.ceil(this.#leaseDurationMs / 1000));
  }

  async #release(): Promise<void> {
    const lease = this.#lease;
    if (!lease || lease.spec?.holderIdentity !== this.identity) return;
    const stamp = new V1MicroTime();
    const spec = {
      ...lease.spec,
      holderIdentity: "",
      leaseDurationSeconds: 1,
      renewTime: stamp,
      acquireTime: stamp,
    };
    try {
      await this.#api.replaceNamespacedLease({
        name: this.name,
        namespace: this.namespace,
        body: { ...lease, spec },
      });
      this.#logger.info({ identity: this.identity, lease: this.name }, "released leadership");
    } catch (err) {
      this.#logger.warn({ err: String(err), lease: this.name }, "could not release the lease");
    }
  }
}

function now(): number {
  return performance.now();
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
