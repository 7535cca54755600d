/** The one error body every console route answers with outside 2xx (design §4.4). */
import { z } from "zod";

/** Stable error codes of the console's own errors. */
export const ERROR_CODES = [
  "invalid_input",
  "unprocessable",
  "unauthenticated",
  "forbidden",
  "csrf",
  "not_found",
  "conflict",
  "too_large",
  "rate_limited",
  "internal",
  "not_implemented",
  "upstream_failed",
  "unavailable",
  "timeout",
] as const;

/** One of the console's own error codes. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * `{ "error": { "code", "message" } }`. `code` is one of ERROR_CODES, or for fleet routes a more specific code
 * (`unknown_node`, `metrics_unconfigured`, `metrics_unreachable`, `controller_unreachable`, ...); a 429 answer
 * carries `Retry-After`.
 */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe("stable, machine-readable error code"),
      message: z.string().describe("what went wrong, for a person"),
    }),
  })
  .meta({ id: "ErrorBody", description: "The error body of every console route" });

/** The error body. */
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error answers of a route: ErrorBody for each status, e.g. `responses: { 200: X, ...errors(403, 404) }`. */
export function errors<const S extends readonly number[]>(
  ...statuses: S
): { [K in S[number]]: typeof ErrorBody } {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as { [K in S[number]]: typeof ErrorBody };
}
