/**
 * The controller's error classes. Domain code and handlers throw (or return) these; the edges map each `code`
 * to a status through one table each: HTTP in api/error-handler.ts, gRPC in grpc/grpc-errors.ts. Domain code
 * never picks status codes. Messages are safe to show to the caller.
 */

/** Stable error codes, one per class. */
export type ControllerErrorCode =
  | "invalid_input"
  | "too_large"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "unsupported"
  | "disabled"
  | "upstream_failed"
  | "not_leader"
  | "timeout"
  | "conflict";

/** Base class: a message for the caller plus a stable code. */
export class ControllerError extends Error {
  constructor(
    readonly code: ControllerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Malformed or invalid input (HTTP 400, gRPC INVALID_ARGUMENT). */
export class InvalidInputError extends ControllerError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

/** A body over the route's limit (HTTP 413). */
export class TooLargeError extends ControllerError {
  constructor(message: string) {
    super("too_large", message);
  }
}

/** Missing or wrong credentials (gRPC UNAUTHENTICATED, HTTP 401). */
export class UnauthenticatedError extends ControllerError {
  constructor(message: string) {
    super("unauthenticated", message);
  }
}

/** Authenticated, but not allowed to speak for this agent or node (gRPC PERMISSION_DENIED, HTTP 403). */
export class ForbiddenError extends ControllerError {
  constructor(message: string) {
    super("forbidden", message);
  }
}

/** Unknown object: agent, node, pending task, task stream (HTTP 404, gRPC NOT_FOUND). */
export class NotFoundError extends ControllerError {
  constructor(message: string) {
    super("not_found", message);
  }
}

/** The route exists but not for this method (HTTP 405 with `Allow`). */
export class MethodNotAllowedError extends ControllerError {
  constructor(readonly allow: readonly string[]) {
    super("method_not_allowed", "method not allowed");
  }
}

/** The agent or this build cannot do what was asked (HTTP 501, gRPC UNIMPLEMENTED). */
export class UnsupportedError extends ControllerError {
  constructor(message: string) {
    super("unsupported", message);
  }
}

/** The feature is switched off by configuration (gRPC UNIMPLEMENTED, HTTP 404). */
export class DisabledError extends ControllerError {
  constructor(message: string) {
    super("disabled", message);
  }
}

/** Handing the work to an agent failed (HTTP 502, gRPC UNAVAILABLE). */
export class UpstreamError extends ControllerError {
  constructor(message: string) {
    super("upstream_failed", message);
  }
}

/** Text of the standby's answer on leader-only routes and streams (spec §4.2: 503 `not the leader`). */
export const NOT_LEADER = "not the leader";

/** This replica is not (or no longer) the leader (HTTP 503 text/plain, gRPC UNAVAILABLE). */
export class NotLeaderError extends ControllerError {
  constructor(message = NOT_LEADER) {
    super("not_leader", message);
  }
}

/** The work did not finish in time (HTTP 504, gRPC DEADLINE_EXCEEDED). */
export class TimeoutError extends ControllerError {
  constructor(message: string) {
    super("timeout", message);
  }
}

/** The request conflicts with state another caller holds, e.g. a node name held by a live agent (HTTP 409, gRPC ALREADY_EXISTS). */
export class ConflictError extends ControllerError {
  constructor(message: string) {
    super("conflict", message);
  }
}
