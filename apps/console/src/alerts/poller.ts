/**
 * The alert poller (spec §3.4, §6.3 points 5 and 6): every `webhooks.alertPollInterval` it reads Prometheus's
 * alerts (GET /api/v1/alerts) and turns changes of the firing set into transitions for a sink (webhook delivery
 * comes later). Rules:
 *
 * - only alerts carrying `svc_rule_id` (rules this console manages) count; pending alerts never fire;
 * - the first successful poll after a start is a baseline: it fills the firing set and hands over nothing;
 * - a failed poll freezes the firing set: nothing fires or resolves until a poll succeeds again;
 * - `alert.fired` carries Prometheus's own activation time (`activeAt`) as `firedAt`;
 * - `alert.resolved` is stamped when noticed (`at` = the time of the poll that no longer saw it);
 * - an alert seen again with another `activeAt` resolved and fired again between two polls: both are handed over.
 *
 * One alert is one (svc_rule_id, label set) pair; its labels are Prometheus's (alertname, rule labels, series).
 */
import { RULE_ID_LABEL } from "@svc/contract";
import { evaluatorUrl } from "../config/rules.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { type Scheduler, wallClock } from "../events/ingester.ts";
import type { ConsoleLogger } from "../log.ts";
import { RULE_GROUP_NAME } from "./rule-file.ts";

/** One alert as Prometheus's /api/v1/alerts lists it. */
export interface PrometheusAlert {
  labels: Record<string, string>;
  state: string;
  /** RFC 3339 */
  activeAt?: string;
  /** the expression's value when last evaluated */
  value?: string;
}

/** A change of the firing set. */
export interface AlertTransition {
  event: "alert.fired" | "alert.resolved";
  ruleId: string;
  labels: Record<string, string>;
  /** ISO 8601: Prometheus's activation time of the firing alert */
  firedAt: string;
  /** ISO 8601: when the console noticed the change (the poll's time) */
  at: string;
}

/** Where transitions go (webhook delivery, maintenance holds: issue 22). */
export interface AlertTransitionSink {
  transitions(batch: readonly AlertTransition[]): void | Promise<void>;
}

/** Options of AlertPoller. */
export interface AlertPollerOptions {
  /** reads the alerts; rejects when Prometheus cannot be read */
  source: () => Promise<PrometheusAlert[]>;
  sink: AlertTransitionSink;
  intervalMs: number;
  scheduler: Scheduler;
  onError?: (err: string) => void;
}

interface Firing {
  ruleId: string;
  labels: Record<string, string>;
  firedAt: string;
}

/** The identity of an alert: its label set, keys sorted. */
export function alertKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

/** The firing, console-managed alerts of a Prometheus answer, by key. */
export function firingSet(alerts: readonly PrometheusAlert[]): Map<string, Firing> {
  const out = new Map<string, Firing>();
  for (const a of alerts) {
    const ruleId = a.labels[RULE_ID_LABEL];
    if (a.state !== "firing" || !ruleId || !a.activeAt) continue;
    const t = Date.parse(a.activeAt);
    if (!Number.isFinite(t)) continue;
    out.set(alertKey(a.labels), { ruleId, labels: { ...a.labels }, firedAt: new Date(t).toISOString() });
  }
  return out;
}

/** Polls Prometheus's alerts on the scheduler and hands firing-set changes to the sink. */
export class AlertPoller {
  /** undefined until the baseline poll succeeded */
  private firing: Map<string, Firing> | undefined;
  private timer: { cancel(): void } | undefined;
  private running = false;
  private active = false;
  private stopped = false;
  private lastError: string | null = null;

  constructor(private readonly opts: AlertPollerOptions) {}

  /** Polls now and every interval after. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.stopped = false;
    this.plan(this.opts.scheduler.now());
  }

  /** Stops polling; a poll in flight finishes but hands nothing over. */
  stop(): void {
    this.active = false;
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The error of the last poll (null when it succeeded or none ran). */
  error(): string | null {
    return this.lastError;
  }

  /** True while the last successful poll saw this alert firing with this firedAt (maintenance holds ask). */
  isFiring(t: Pick<AlertTransition, "labels" | "firedAt">): boolean {
    return this.firing?.get(alertKey(t.labels))?.firedAt === t.firedAt;
  }

  /** True once a baseline was taken. */
  hasBaseline(): boolean {
    return this.firing !== undefined;
  }

  private plan(at: number): void {
    if (!this.active) return;
    this.timer = this.opts.scheduler.schedule(at, (now) => {
      void this.poll(now).finally(() => this.plan(now + this.opts.intervalMs));
    });
  }

  /** One poll at `now`; resolves with the transitions it handed over. Never rejects. */
  async poll(now: number): Promise<AlertTransition[]> {
    if (this.running) return [];
    this.running = true;
    try {
      let alerts: PrometheusAlert[];
      try {
        alerts = await this.opts.source();
      } catch (e) {
        this.lastError = e instanceof Error ? e.message : String(e);
        this.opts.onError?.(this.lastError);
        return []; // frozen: the firing set stays as it was
      }
      this.lastError = null;
      const current = firingSet(alerts);
      const before = this.firing;
      this.firing = current;
      if (before === undefined || this.stopped) return []; // the baseline delivers nothing
      const at = new Date(now).toISOString();
      const out: AlertTransition[] = [];
      for (const [key, was] of before) {
        const is = current.get(key);
        if (!is || is.firedAt !== was.firedAt) out.push({ event: "alert.resolved", ...was, at });
      }
      for (const [key, is] of current) {
        const was = before.get(key);
        if (!was || was.firedAt !== is.firedAt) out.push({ event: "alert.fired", ...is, at });
      }
      if (out.length > 0) {
        try {
          await this.opts.sink.transitions(out);
        } catch (e) {
          this.opts.onError?.(`alert sink: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return out;
    } finally {
      this.running = false;
    }
  }
}

/**
 * Reads the rule evaluator's alerts (GET /api/v1/alerts) at `url` (no trailing slash), with a timeout. vmalert adds
 * the label `alertgroup` (the rule group's name) that Prometheus, Thanos Ruler and the Mimir ruler do not: on the
 * console's own group it is taken off, so an alert's labels (and the webhooks' dedupe key) are the same on every
 * evaluator.
 */
export function prometheusAlertSource(url: string, timeoutMs = 10_000): () => Promise<PrometheusAlert[]> {
  return async () => {
    const res = await fetch(`${url}/api/v1/alerts`, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    const body = (await res.json().catch(() => undefined)) as
      | { status?: string; error?: string; data?: { alerts?: PrometheusAlert[] | null } }
      | undefined;
    // vmalert lists no alerts as null, Prometheus as []
    const alerts = body?.data?.alerts === null ? [] : body?.data?.alerts;
    if (!res.ok || body?.status !== "success" || !Array.isArray(alerts))
      throw new Error(`prometheus alerts: ${body?.error ?? `status ${res.status}`}`);
    return alerts.map(withoutGroupLabel);
  };
}

/** The label vmalert adds to its alerts: the rule group's name. */
const GROUP_LABEL = "alertgroup";

function withoutGroupLabel(a: PrometheusAlert): PrometheusAlert {
  if (a.labels?.[GROUP_LABEL] !== RULE_GROUP_NAME) return a;
  return { ...a, labels: Object.fromEntries(Object.entries(a.labels).filter(([k]) => k !== GROUP_LABEL)) };
}

/** Until webhook delivery exists: transitions are logged (issue 22 delivers them to endpoints). */
export function loggingSink(log: Pick<ConsoleLogger, "info">): AlertTransitionSink {
  return {
    transitions(batch) {
      for (const t of batch)
        log.info(
          { event: t.event, ruleId: t.ruleId, labels: t.labels, firedAt: t.firedAt, at: t.at },
          "alert transition",
        );
    },
  };
}

/**
 * The console's poller (`webhooks.alertPollInterval`, reading `prometheus.url`), or undefined without a Prometheus.
 * `seams` replace the scheduler and the sink (tests; the webhook dispatcher later).
 */
export function alertPollerFromConfig(
  config: ConsoleConfig,
  log: ConsoleLogger,
  seams: { scheduler?: Scheduler; sink?: AlertTransitionSink } = {},
): AlertPoller | undefined {
  const url = evaluatorUrl(config);
  if (url === "") return undefined;
  return new AlertPoller({
    source: prometheusAlertSource(url, config.prometheus.queryTimeout),
    sink: seams.sink ?? loggingSink(log),
    intervalMs: config.webhooks.alertPollInterval,
    scheduler: seams.scheduler ?? wallClock,
    onError: (err) => log.warn({ err }, "alert poll failed: the firing set is frozen until a poll succeeds"),
  });
}
