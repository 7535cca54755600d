/**
 * The one table mapping error classes to HTTP status codes (design §4.4), and the fastify error handler using it.
 * Error bodies share one JSON shape: `{ "error": { "code": "...", "message": "..." } }`.
 */
import type { ErrorBody } from "@svc/contract";
import type { FastifyError, FastifyInstance } from "fastify";
import { ConsoleError, type ErrorCode, RateLimitedError } from "../errors.ts";

/** Status code per error code. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  csrf: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  upstream_failed: 502,
  unavailable: 503,
  timeout: 504,
};

/**
 * Installs the error handler and a JSON 404 for unknown routes. `onInternal` sees every error that would be a 500;
 * it may answer with a ConsoleError to send instead (e.g. 503 when the store is down).
 */
export function installErrorHandler(
  app: FastifyInstance,
  onInternal: (err: unknown) => ConsoleError | undefined,
): void {
  app.setErrorHandler(async (thrown: FastifyError | ConsoleError, _req, reply) => {
    let err = thrown;
    if (!(err instanceof ConsoleError) && !isClientError(err)) err = onInternal(err) ?? err;
    if (err instanceof ConsoleError) {
      if (err instanceof RateLimitedError) reply.header("retry-after", String(err.retryAfterSeconds));
      return reply.code(ERROR_STATUS[err.code]).send(body(err.bodyCode, err.message));
    }
    if (!isClientError(err)) return reply.code(500).send(body("internal", "internal error"));
    const status = err.statusCode as number;
    return reply.code(status).send(body(status === 413 ? "too_large" : "invalid_input", err.message));
  });
  app.setNotFoundHandler(async (_req, reply) => reply.code(404).send(body("not_found", "not found")));
}

/** fastify's own errors (bad JSON, body too large, schema validation) carry a 4xx statusCode. */
function isClientError(err: FastifyError): boolean {
  return typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500;
}

function body(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
