/**
 * Alert rules (issue 22): stored in the database (the source of truth), written to Prometheus as a rule file
 * (rule-file.ts) after every committed change and once when the store is ready. Every write and its audit row
 * commit in one transaction. Refusals: 422 `alert name collision` when a name collapses to another rule's alert
 * name (a unique index on alert_name decides, so two racing writes cannot both win); 422 for a name with no letter
 * or digit; 422 for an expression Prometheus refuses (checked with an instant query when `prometheus.url` is set
 * and Prometheus answers; an unreachable Prometheus does not block the write, the sync state reports it).
 */
import { randomUUID } from "node:crypto";
import type { KubeConfig } from "@kubernetes/client-node";
import {
  ALERT_PREVIEW_MAX_SERIES,
  type AlertRule,
  type AlertRuleInput,
  type AlertRuleSync,
  alertNameOf,
} from "@svc/contract";
import { evaluatorUrl } from "../config/rules.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { InvalidInputError, NotFoundError, UnprocessableError } from "../errors.ts";
import { defaultKubeConfig } from "../events/history.ts";
import { MetricsUnconfiguredError, MetricsUpstreamError } from "../fleet/fleet-errors.ts";
import { PrometheusClient } from "../fleet/prometheus-client.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row, SqlExecutor } from "../store/db.ts";
import { isUniqueViolation, num } from "../store/rows.ts";
import { consoleNamespace, PrometheusRuleSync } from "./prometheus-rule.ts";
import { RuleFileSync } from "./rule-file.ts";
import { allSinks, type RuleSink } from "./rule-sync.ts";

/** The 422 text of spec §7 for rule names collapsing to one alert name. */
export const ALERT_NAME_COLLISION = "alert name collision";

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function obj(v: unknown): Record<string, string> {
  const o = typeof v === "string" ? (JSON.parse(v) as unknown) : v;
  return o && typeof o === "object" ? (o as Record<string, string>) : {};
}

function toRule(r: Row): AlertRule {
  return {
    id: String(r.id),
    name: String(r.name),
    alertName: String(r.alert_name),
    expr: String(r.expr),
    forSeconds: num(r.for_seconds),
    labels: obj(r.labels),
    annotations: obj(r.annotations),
    description: String(r.description),
    enabled: r.enabled === true,
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

/** What a preview answers. */
export interface AlertPreview {
  alertName: string;
  total: number;
  series: { labels: Record<string, string>; value: number | null }[];
}

/** Dependencies of AlertRules. */
export interface AlertRulesOptions {
  db: Db;
  now: () => number;
  /** undefined without `prometheus.url` (previews answer 503, expressions are not checked) */
  prometheus: PrometheusClient | undefined;
  /** `alerts.ruleDirectory` ("" = rules are kept but not written) */
  ruleDirectory: string;
  /** the rule evaluator's base URL for /-/reload ("" = none): `alerts.evaluatorUrl`, else `prometheus.url` */
  prometheusUrl: string;
  /** with `kubernetesContext.enabled`: the rules are also written as a PrometheusRule object there */
  prometheusRule?: { kubeConfig: KubeConfig; namespace: string; labels: Readonly<Record<string, string>> };
  onSyncError?: (err: string) => void;
}

/**
 * Alert rule reads, audited writes, preview, and the places Prometheus reads them from kept in step: the rule file
 * (`alerts.ruleDirectory`) and, with `kubernetesContext.enabled`, the PrometheusRule object; both when both are
 * configured (docs/decisions.md, "Alert rules in Kubernetes").
 */
export class AlertRules {
  /** every configured place the rules are written to, as one */
  readonly file: RuleSink;

  constructor(private readonly opts: AlertRulesOptions) {
    const onError = opts.onSyncError ? { onError: opts.onSyncError } : {};
    const sinks: { name: string; sink: RuleSink }[] = [
      {
        name: "rule file",
        sink: new RuleFileSync({
          directory: opts.ruleDirectory,
          prometheusUrl: opts.prometheusUrl,
          rules: () => this.list(),
          now: opts.now,
          ...onError,
        }),
      },
    ];
    if (opts.prometheusRule)
      sinks.push({
        name: "PrometheusRule",
        sink: new PrometheusRuleSync({
          ...opts.prometheusRule,
          rules: () => this.list(),
          now: opts.now,
          ...onError,
        }),
      });
    this.file = allSinks(sinks);
  }

  /** Every rule, by name. */
  async list(): Promise<AlertRule[]> {
    const rows = await this.opts.db.query("SELECT * FROM alert_rules ORDER BY lower(name), id");
    return rows.map(toRule);
  }

  /** How the rule file stands against Prometheus. */
  sync(): AlertRuleSync {
    return this.file.status();
  }

  /** One rule; NotFoundError for an unknown id. */
  async get(id: string): Promise<AlertRule> {
    const [row] = await this.opts.db.query("SELECT * FROM alert_rules WHERE id = $1", [id]);
    if (!row) throw new NotFoundError("no such alert rule");
    return toRule(row);
  }

  /** Creates a rule; the rule file follows once it committed. */
  async create(input: AlertRuleInput, actor: AuditActor): Promise<AlertRule> {
    const alertName = await this.check(input);
    const now = this.opts.now();
    const rule = await this.write(async (tx) => {
      const [row] = await tx.query(
        `INSERT INTO alert_rules (id, name, alert_name, expr, for_seconds, labels, annotations, description,
           enabled, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $10) RETURNING *`,
        [randomUUID(), ...this.values(input, alertName), now],
      );
      if (!row) throw new Error("insert returned no row");
      const out = toRule(row);
      await insertAudit(tx, allowedRow(actor, now, { ruleId: out.id, alertName }));
      return out;
    });
    await this.file.sync();
    return rule;
  }

  /** Replaces a rule; NotFoundError for an unknown id. */
  async update(id: string, input: AlertRuleInput, actor: AuditActor): Promise<AlertRule> {
    const alertName = await this.check(input);
    const now = this.opts.now();
    const rule = await this.write(async (tx) => {
      const [row] = await tx.query(
        `UPDATE alert_rules SET name = $2, alert_name = $3, expr = $4, for_seconds = $5, labels = $6::jsonb,
           annotations = $7::jsonb, description = $8, enabled = $9, updated_at = $10
         WHERE id = $1 RETURNING *`,
        [id, ...this.values(input, alertName), now],
      );
      if (!row) throw new NotFoundError("no such alert rule");
      const out = toRule(row);
      await insertAudit(tx, allowedRow(actor, now, { ruleId: id, alertName }));
      return out;
    });
    await this.file.sync();
    return rule;
  }

  /** Deletes a rule; NotFoundError for an unknown id. */
  async delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.opts.now();
    await this.opts.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM alert_rules WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such alert rule");
      await insertAudit(tx, allowedRow(actor, now, { ruleId: id }));
    });
    await this.file.sync();
  }

  /** Evaluates a draft now (an instant query); stores nothing. */
  async preview(input: AlertRuleInput): Promise<AlertPreview> {
    const alertName = alertNameOf(input.name);
    if (alertName === "") throw new UnprocessableError("name must hold a letter or a digit");
    const prom = this.opts.prometheus;
    if (!prom) throw new MetricsUnconfiguredError();
    const samples = await this.evaluate(prom, input.expr);
    return {
      alertName,
      total: samples.length,
      series: samples.slice(0, ALERT_PREVIEW_MAX_SERIES).map((s) => {
        const { __name__: _drop, ...labels } = s.metric;
        return {
          labels: { ...labels, ...input.labels, alertname: alertName },
          value: Number.isFinite(s.value) ? s.value : null,
        };
      }),
    };
  }

  private values(input: AlertRuleInput, alertName: string): unknown[] {
    return [
      input.name,
      alertName,
      input.expr,
      input.forSeconds,
      JSON.stringify(input.labels),
      JSON.stringify(input.annotations),
      input.description,
      input.enabled,
    ];
  }

  /** A transaction whose unique violation (alert_name) is the collision 422. */
  private async write<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.opts.db.transaction(fn);
    } catch (e) {
      if (isUniqueViolation(e)) throw new UnprocessableError(ALERT_NAME_COLLISION);
      throw e;
    }
  }

  /** The alert name of `input`, or a 422. */
  private async check(input: AlertRuleInput): Promise<string> {
    const alertName = alertNameOf(input.name);
    if (alertName === "") throw new UnprocessableError("name must hold a letter or a digit");
    if (input.expr.trim() === "") throw new UnprocessableError("expr must not be empty");
    const prom = this.opts.prometheus;
    if (prom) {
      try {
        await this.evaluate(prom, input.expr);
      } catch (e) {
        if (!(e instanceof MetricsUpstreamError)) throw e; // an unreachable Prometheus does not block the write
      }
    }
    return alertName;
  }

  private async evaluate(prom: PrometheusClient, expr: string) {
    try {
      const r = await prom.raw("query", { query: expr });
      if (r.resultType !== "vector")
        throw new UnprocessableError(`expr must give an instant vector, not ${r.resultType}`);
      return (r.result as { metric: Record<string, string>; value: [number, string] }[]).map((x) => ({
        metric: x.metric,
        value: Number(x.value[1]),
      }));
    } catch (e) {
      if (e instanceof InvalidInputError)
        throw new UnprocessableError(e.message.replace(/^query: /, "expr: "));
      throw e;
    }
  }
}

/**
 * AlertRules as the console configuration sets them up (`prometheus.*`, `alerts.*`, `kubernetesContext.enabled`
 * with `kubeConfig`, default: in a pod the in-cluster API, elsewhere the default kubeconfig).
 */
export function alertRulesFromConfig(
  config: ConsoleConfig,
  db: Db,
  now: () => number,
  log: { warn(obj: object, msg: string): void },
  kubeConfig?: () => KubeConfig,
): AlertRules {
  const p = config.prometheus;
  const url = p.url.replace(/\/+$/, "");
  return new AlertRules({
    db,
    now,
    prometheus:
      url === ""
        ? undefined
        : new PrometheusClient({ url, queryTimeoutMs: p.queryTimeout, maxResponseBytes: p.maxResponseBytes }),
    ruleDirectory: config.alerts.ruleDirectory,
    prometheusUrl: evaluatorUrl(config),
    ...(config.kubernetesContext.enabled
      ? {
          prometheusRule: {
            kubeConfig: (kubeConfig ?? defaultKubeConfig)(),
            namespace: consoleNamespace(),
            labels: config.alerts.prometheusRuleLabels,
          },
        }
      : {}),
    onSyncError: (err) => log.warn({ err }, "alert rule file sync failed"),
  });
}
