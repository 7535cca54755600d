/**
 * Handlers of the metrics-query routes (contract: @svc/contract metrics-queries.ts) and the anonymous budgets of
 * spec §7 (429): an anonymous caller spends one attempt per query (per run, for runs) from a per-address budget.
 */
import * as c from "@svc/contract";
import type { FastifyRequest } from "fastify";
import type { Principal } from "../auth/principal.ts";
import type { Budget, BudgetFactory } from "../auth/rate-limit.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { InvalidInputError, RateLimitedError } from "../errors.ts";
import { MetricsUnconfiguredError } from "../fleet/fleet-errors.ts";
import { PrometheusClient } from "../fleet/prometheus-client.ts";
import type { AddRoute } from "./register.ts";

const MINUTE = 60_000;
/** Metrics queries an anonymous caller may make per address per minute. */
export const ANONYMOUS_QUERIES_PER_MINUTE = 60;
/** Runs an anonymous caller may start per address per minute. */
export const ANONYMOUS_RUNS_PER_MINUTE = 10;

/** Spends one attempt of `budget` for an anonymous caller (others are not budgeted); 429 when spent. */
export async function spendAnonymous(
  budget: Budget,
  principal: Principal,
  req: FastifyRequest,
  what: string,
): Promise<void> {
  if (principal.kind !== "anonymous") return;
  const s = await budget.spend(req.clientAddr || "unknown");
  if (!s.ok)
    throw new RateLimitedError(
      `too many ${what} from this address`,
      Math.max(1, Math.ceil(s.retryAfterMs / 1000)),
    );
}

/** Registers the two metrics-query routes. */
export function addMetricsQueryRoutes(
  add: AddRoute,
  deps: { config: ConsoleConfig; budgets: BudgetFactory },
): void {
  const p = deps.config.prometheus;
  const prom =
    p.url === ""
      ? undefined
      : new PrometheusClient({
          url: p.url.replace(/\/+$/, ""),
          queryTimeoutMs: p.queryTimeout,
          maxResponseBytes: p.maxResponseBytes,
        });
  const budget = deps.budgets("anonymous-metrics-queries", ANONYMOUS_QUERIES_PER_MINUTE, MINUTE);
  const client = (): PrometheusClient => {
    if (!prom) throw new MetricsUnconfiguredError();
    return prom;
  };
  add(c.queryMetrics, async ({ body, principal, req }) => {
    const prometheus = client();
    await spendAnonymous(budget, principal, req, "metrics queries");
    const params: Record<string, string> = { query: body.query };
    if (body.time !== undefined) params.time = String(Date.parse(body.time) / 1000);
    return prometheus.raw("query", params);
  });
  add(c.queryMetricsRange, async ({ body, principal, req }) => {
    const prometheus = client();
    const start = Date.parse(body.start);
    const end = Date.parse(body.end);
    if (end < start) throw new InvalidInputError("end must not be before start");
    if (end - start > p.maxRange)
      throw new InvalidInputError(`range is longer than prometheus.maxRange (${p.maxRange / 1000} s)`);
    if ((end - start) / 1000 / body.stepSeconds > c.RANGE_POINTS_MAX)
      throw new InvalidInputError(`more than ${c.RANGE_POINTS_MAX} points per series: use a larger step`);
    await spendAnonymous(budget, principal, req, "metrics queries");
    return prometheus.raw("query_range", {
      query: body.query,
      start: String(start / 1000),
      end: String(end / 1000),
      step: String(body.stepSeconds),
    });
  });
}
