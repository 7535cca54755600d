import type { ExternalChecker } from "@svc/core";
import type { ExternalCheckSpecMessage, grpc, TaskMessage } from "@svc/protocol";
import type { MetricRegistry } from "../metrics/store/registry.ts";
import type { BackoffPolicy } from "../registration/facts.ts";
import { type Logger, silentLogger } from "../registration/logger.ts";
import { PeriodicTask } from "../scheduler/periodic-task.ts";
import { type AssignedSpec, assignedSpec, limitTargets, targetHost } from "./assigned-spec.ts";
import { AssignmentWatch } from "./assignment-watch.ts";
import { ExternalMetrics } from "./external-metrics.ts";
import { type ExternalProbers, runExternalCheck } from "./run-check.ts";
import { type HostLookup, type PolicyDecision, TargetPolicy } from "./target-policy.ts";

export interface ExternalCheckRunnerOptions {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** client interceptors of every call to the controller */
  interceptors?: grpc.Interceptor[];
  /** the id this agent registers under (RegistrationClient.agentId) */
  agentId: () => string;
  metricsRegistry: MetricRegistry;
  metricsPrefix: string;
  sourceNode: string;
  /** the agent's zone as last resolved (RegistrationClient.zone) */
  sourceZone: () => string;
  probers: ExternalProbers;
  /** `checkers.external` at startup */
  config: ExternalChecker;
  logger?: Logger;
  /** host name resolution for targets; default the system resolver */
  lookup?: HostLookup;
  /** resubscribe backoff; default 2 s doubling to 30 s */
  backoff?: BackoffPolicy;
}

interface JobState {
  spec: AssignedSpec;
  busy: boolean;
  stopped: boolean;
}
interface Job extends JobState {
  task: PeriodicTask;
}

/**
 * Continuous external checks on the agent. Watches this agent's assignment (WatchExternalChecks) and runs each
 * spec every intervalNs with timeout min(spec timeout, checkers.external.timeout when > 0). Enforced here, per
 * run: `checkers.external.enabled` (off: nothing probes, each due run counts denied `disabled`), allowedCidrs and
 * deniedCidrs on the target's resolved addresses (`resolve`, `cidr`, see TargetPolicy). `maxTargets`: specs of
 * targets beyond the first maxTargets target names, in assignment order, are ignored with a warning. A run still
 * in flight when the next is due skips that slot. Series of specs leaving the assignment are deleted.
 * applyConfig() takes a reloaded `checkers.external` live.
 */
export class ExternalCheckRunner {
  readonly #opts: ExternalCheckRunnerOptions;
  readonly #logger: Logger;
  readonly #metrics: ExternalMetrics;
  readonly #watch: AssignmentWatch;
  readonly #jobs = new Map<string, Job>();
  /** series keys of the specs running, to delete the series of those that leave */
  #liveSeries = new Set<string>();
  /** keys of the running specs in assignment order */
  #order: string[] = [];
  #config: ExternalChecker;
  #policy: TargetPolicy;
  #assignment: ExternalCheckSpecMessage[] = [];
  #started = false;

  constructor(opts: ExternalCheckRunnerOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#config = opts.config;
    this.#policy = new TargetPolicy(opts.config, opts.lookup);
    this.#metrics = new ExternalMetrics(opts.metricsPrefix, opts.metricsRegistry, {
      node: opts.sourceNode,
      zone: opts.sourceZone,
    });
    this.#watch = new AssignmentWatch({
      controllerAddress: opts.controllerAddress,
      agentId: opts.agentId,
      onAssignment: (specs) => this.applyAssignment(specs),
      logger: this.#logger,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      ...(opts.interceptors ? { interceptors: opts.interceptors } : {}),
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
    });
  }

  /** Subscribes to the assignment and runs it. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#watch.start();
    this.#reconcile();
  }

  /** Closes the stream and stops every check; series stay until the process ends. */
  stop(): void {
    this.#started = false;
    this.#watch.stop();
    for (const job of this.#jobs.values()) this.#stopJob(job);
    this.#jobs.clear();
  }

  /** Applies a reloaded `checkers.external` (enabled, CIDRs, maxTargets, timeout) to the running checks. */
  applyConfig(next: ExternalChecker): void {
    this.#config = next;
    this.#policy = new TargetPolicy(next, this.#opts.lookup);
    this.#reconcile();
  }

  /** Replaces the assignment (what the stream delivers); runs it when started. */
  applyAssignment(specs: ExternalCheckSpecMessage[]): void {
    this.#assignment = specs;
    this.#reconcile();
  }

  /**
   * The allowlist decision for a one-shot diagnostic to an external destination (spec §4.2: the source agent's
   * own allowlist decides whether the probe happens): the same TargetPolicy as the continuous checks, with the
   * live `checkers.external`, on the task's address (a name is resolved and every address checked). A refusal is
   * counted in `external_denied_total` like a continuous check's, labelled with the destination's name
   * (`target`), `target_kind` `host` and the probe type (`check_type`: tcp, icmp or mtr).
   */
  async admitDiagnostic(task: TaskMessage): Promise<PolicyDecision> {
    const decision = await this.#policy.admit(task.address);
    if (!decision.ok) {
      this.#metrics.recordDenied(
        { target: { name: task.destination, kind: "host" }, checkType: task.type },
        decision.reason,
      );
      this.#logger.debug(
        { target: task.destination, reason: decision.reason, detail: decision.detail },
        "external diagnostic denied",
      );
    }
    return decision;
  }

  /** The specs running now, in assignment order. */
  running(): AssignedSpec[] {
    return this.#order.flatMap((k) => {
      const job = this.#jobs.get(k);
      return job ? [job.spec] : [];
    });
  }

  #reconcile(): void {
    const valid: AssignedSpec[] = [];
    const seen = new Set<string>();
    for (const m of this.#assignment) {
      const s = assignedSpec(m);
      if ("error" in s) {
        this.#logger.warn({ definitionId: m.definition_id, error: s.error }, "external check spec ignored");
      } else if (!seen.has(s.key)) {
        seen.add(s.key);
        valid.push(s);
      }
    }
    const { run, ignored } = limitTargets(valid, this.#config.maxTargets);
    if (ignored.length > 0) {
      this.#logger.warn(
        {
          maxTargets: this.#config.maxTargets,
          ignored: ignored.map((s) => `${s.target.name}/${s.checkType}`),
        },
        "external checks beyond checkers.external.maxTargets ignored",
      );
    }
    const want = this.#started ? run : [];
    const wantKeys = new Set(want.map((s) => s.key));
    this.#order = want.map((s) => s.key);
    for (const [key, job] of this.#jobs) {
      if (wantKeys.has(key)) continue;
      this.#stopJob(job);
      this.#jobs.delete(key);
    }
    if (this.#started) {
      const live = new Set(want.map((s) => this.#metrics.seriesKey(s)));
      for (const k of this.#liveSeries) if (!live.has(k)) this.#metrics.remove(k);
      this.#liveSeries = live;
    }
    for (const s of want) if (!this.#jobs.has(s.key)) this.#startJob(s);
  }

  #startJob(spec: AssignedSpec): void {
    const state: JobState = { spec, busy: false, stopped: false };
    const job: Job = Object.assign(state, {
      task: new PeriodicTask({ intervalMs: spec.intervalMs, phaseMs: 0, tick: () => void this.#tick(state) }),
    });
    this.#jobs.set(spec.key, job);
    job.task.start();
  }

  #stopJob(job: Job): void {
    job.stopped = true;
    job.task.stop();
  }

  async #tick(job: JobState): Promise<void> {
    if (job.busy || job.stopped) return;
    job.busy = true;
    try {
      const { spec } = job;
      const decision = await this.#policy.admit(targetHost(spec));
      if (job.stopped) return;
      if (!decision.ok) {
        this.#metrics.recordDenied(spec, decision.reason);
        this.#logger.debug(
          { target: spec.target.name, reason: decision.reason, detail: decision.detail },
          "external check denied",
        );
        return;
      }
      const cap = this.#config.timeout;
      const timeoutMs = cap > 0 ? Math.min(spec.timeoutMs, cap) : spec.timeoutMs;
      const outcome = await runExternalCheck(spec, decision.address, timeoutMs, this.#opts.probers);
      if (!job.stopped) this.#metrics.recordOutcome(spec, outcome);
    } finally {
      job.busy = false;
    }
  }
}
