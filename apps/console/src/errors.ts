/**
 * The console's error classes. Domain code throws these; the HTTP edge (api/error-handler.ts) maps each `code` to
 * a status through one table. Domain code never picks status codes.
 */
import type { ErrorCode } from "@svc/contract";

/** Stable error codes, one per class (the contract's list). */
export type { ErrorCode };

/**
 * Base class: a message safe to show to the caller plus a stable code. `code` picks the status (one table at the
 * edge); `bodyCode` is what the body says, the same unless a subclass names something more specific (the fleet
 * API's `unknown_node`, `metrics_unconfigured`, ...).
 */
export class ConsoleError extends Error {
  readonly bodyCode: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
    this.bodyCode = code;
  }
}

/** A ConsoleError class whose instances all carry `code`. */
function withCode(code: ErrorCode) {
  return class extends ConsoleError {
    constructor(message: string) {
      super(code, message);
    }
  };
}

/** Malformed input (400). */
export class InvalidInputError extends withCode("invalid_input") {}

/** Well-formed input that cannot be applied (422). */
export class UnprocessableError extends withCode("unprocessable") {}

/** No valid credentials, or a session past its bounds (401). */
export class UnauthenticatedError extends ConsoleError {
  constructor(message = "authentication required") {
    super("unauthenticated", message);
  }
}

/** Authenticated but lacking the permission (403). */
export class ForbiddenError extends ConsoleError {
  constructor(message = "permission denied") {
    super("forbidden", message);
  }
}

/** A state-changing request without the matching CSRF header (403). */
export class CsrfError extends ConsoleError {
  constructor(message = "missing or wrong CSRF token") {
    super("csrf", message);
  }
}

/** Unknown object or route outside the current mode (404). */
export class NotFoundError extends ConsoleError {
  constructor(message = "not found") {
    super("not_found", message);
  }
}

/** The change conflicts with current state, e.g. the last-administrator guard (409). */
export class ConflictError extends withCode("conflict") {}

/** A budget is spent (429); `retryAfterSeconds` tells when it refills. */
export class RateLimitedError extends ConsoleError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
}

/** A dependency the console called failed, e.g. `tokens unavailable` (502). */
export class UpstreamError extends withCode("upstream_failed") {}

/** A body over the accepted size (413). */
export class TooLargeError extends withCode("too_large") {}

/** What was asked cannot be done by whoever would do it, e.g. the source agent lacks the probe (501). */
export class NotImplementedError extends withCode("not_implemented") {}

/** A dependency did not answer in time (504). */
export class TimeoutError extends withCode("timeout") {}

/** The console cannot serve this now, e.g. store down or no event history (503). */
export class UnavailableError extends withCode("unavailable") {}
