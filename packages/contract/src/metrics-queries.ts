/**
 * Metrics queries (spec §4.3: two POST routes with `promql:query`, paths the console's choice; §8.1 limits): a
 * PromQL instant or range query passed to Prometheus under `console.prometheus.queryTimeout`, `maxRange` and
 * `maxResponseBytes`. POST because a query may not fit a URL; they change nothing (`safe`: not audited). 503
 * without `console.prometheus.url`; 429 when an anonymous caller's per-address budget is spent; 400 for a query
 * Prometheus refuses; 502 when Prometheus fails, is too slow, or answers more than maxResponseBytes.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { text } from "./strings.ts";

/** Longest query text. */
export const PROMQL_MAX = 16_384;
/** Most points per series a range query may ask for (Prometheus's own bound). */
export const RANGE_POINTS_MAX = 11_000;

const instant = (key: string) =>
  z.iso.datetime({ offset: true, message: `${key} must be an ISO 8601 instant` });

export const InstantQuery = z.strictObject({
  query: text(PROMQL_MAX).min(1),
  time: instant("time").optional().describe("evaluation instant; default now"),
});

export const RangeQuery = z.strictObject({
  query: text(PROMQL_MAX).min(1),
  start: instant("start"),
  end: instant("end"),
  stepSeconds: z.number().positive().max(86_400),
});

/** Prometheus's `data`: `resultType` (vector, matrix, scalar, string) and `result` as Prometheus gives it. */
export const QueryResult = z
  .object({ resultType: z.string(), result: z.unknown() })
  .meta({ id: "QueryResult" });
export type QueryResult = z.infer<typeof QueryResult>;

export const queryMetrics = route({
  name: "queryMetrics",
  method: "POST",
  path: "/api/v1/metrics/query",
  tag: "metrics",
  summary: "A PromQL instant query",
  access: "promql:query",
  spec: false,
  safe: true,
  body: InstantQuery,
  example: { query: "up" },
  responses: { 200: QueryResult, ...errors(400, 401, 403, 429, 502, 503) },
});

export const queryMetricsRange = route({
  name: "queryMetricsRange",
  method: "POST",
  path: "/api/v1/metrics/query_range",
  tag: "metrics",
  summary: "A PromQL range query",
  description: `400 when end is before start, the range is over prometheus.maxRange, or over ${RANGE_POINTS_MAX} points.`,
  access: "promql:query",
  spec: false,
  safe: true,
  body: RangeQuery,
  example: { query: "up", start: "2026-01-01T00:00:00Z", end: "2026-01-01T01:00:00Z", stepSeconds: 60 },
  responses: { 200: QueryResult, ...errors(400, 401, 403, 429, 502, 503) },
});
