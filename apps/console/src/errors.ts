/**
 * The console's error classes. Domain code throws these; the HTTP edge (api/error-handler.ts) maps each `code` to
 * a status through one table. Domain code never picks status codes.
 */

/** Stable error codes, one per class. */
export type ErrorCode =
  | "invalid_input"
  | "unprocessable"
  | "unauthenticated"
  | "forbidden"
  | "csrf"
  | "not_found"
  | "conflict"
  | "rate_limited"
  | "upstream_failed"
  | "unavailable";

/** Base class: a message safe to show to the caller plus a stable code. */
export class ConsoleError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Malformed input (400). */
export class InvalidInputError extends ConsoleError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

/** Well-formed input that cannot be applied (422). */
export class UnprocessableError extends ConsoleError {
  constructor(message: string) {
    super("unprocessable", message);
  }
}

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
export class ConflictError extends ConsoleError {
  constructor(message: string) {
    super("conflict", message);
  }
}

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
export class UpstreamError extends ConsoleError {
  constructor(message: string) {
    super("upstream_failed", message);
  }
}

/** The console cannot serve this now, e.g. store down or no event history (503). */
export class UnavailableError extends ConsoleError {
  constructor(message: string) {
    super("unavailable", message);
  }
}
