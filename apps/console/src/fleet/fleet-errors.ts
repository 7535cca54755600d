/**
 * Errors of the fleet API. Each extends a console error class (so the edge table in api/error-handler.ts picks
 * the status) and names the body code the fleet API contract promises (`metrics_unconfigured`, ...).
 */
import {
  type ConsoleError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  TimeoutError,
  TooLargeError,
  UnavailableError,
  UpstreamError,
} from "../errors.ts";

/** `prometheus.url` is empty (503 `metrics_unconfigured`). */
export class MetricsUnconfiguredError extends UnavailableError {
  override readonly bodyCode = "metrics_unconfigured";
  constructor() {
    super("metrics server not configured");
  }
}

/** Prometheus unreachable, erroring, too slow or answering too much (502 `metrics_unreachable`). */
export class MetricsUpstreamError extends UpstreamError {
  override readonly bodyCode = "metrics_unreachable";
}

/** The controller cannot be reached or answered garbage (502 `controller_unreachable`). */
export class ControllerUnreachableError extends UpstreamError {
  override readonly bodyCode = "controller_unreachable";
}

/** `controller.url` is empty (503 `controller_unconfigured`). */
export class ControllerUnconfiguredError extends UnavailableError {
  override readonly bodyCode = "controller_unconfigured";
  constructor() {
    super("controller not configured");
  }
}

/** A Time Machine read with no stored topology to rebuild the past from (503 `history_unavailable`). */
export class HistoryUnavailableError extends UnavailableError {
  override readonly bodyCode = "history_unavailable";
}

/** A node name the controller does not know (404 `unknown_node`). */
export class UnknownNodeError extends NotFoundError {
  override readonly bodyCode = "unknown_node";
  constructor(name: string) {
    super(`unknown node ${JSON.stringify(name)}`);
  }
}

/**
 * The console error for a status the controller answered POST /api/v1/diagnostics with (spec §4.2, §7), its text
 * as the message; a status outside these is the controller failing (502).
 */
export function controllerAnswerError(status: number, text: string): ConsoleError {
  const message = text.trim() || `controller answered ${status}`;
  switch (status) {
    case 400:
      return new InvalidInputError(message);
    case 404:
      return new NotFoundError(message);
    case 413:
      return new TooLargeError(message);
    case 501:
      return new NotImplementedError(message);
    case 503:
      return new UnavailableError(message);
    case 504:
      return new TimeoutError(message);
    default:
      return new UpstreamError(message);
  }
}
