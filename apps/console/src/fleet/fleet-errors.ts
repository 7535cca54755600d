/**
 * Errors of the fleet API. Each extends a console error class (so the edge table in api/error-handler.ts picks
 * the status) and names the body code the fleet API contract promises (`metrics_unconfigured`, ...).
 */
import { NotFoundError, UnavailableError, UpstreamError } from "../errors.ts";

/** An error whose JSON body carries `bodyCode` instead of the class's generic code. */
export interface FleetCoded {
  readonly bodyCode: string;
}

/** `prometheus.url` is empty (503 `metrics_unconfigured`). */
export class MetricsUnconfiguredError extends UnavailableError implements FleetCoded {
  readonly bodyCode = "metrics_unconfigured";
  constructor() {
    super("metrics server not configured");
  }
}

/** Prometheus unreachable, erroring, too slow or answering too much (502 `metrics_unreachable`). */
export class MetricsUpstreamError extends UpstreamError implements FleetCoded {
  readonly bodyCode = "metrics_unreachable";
}

/** The controller cannot be reached or answered garbage (502 `controller_unreachable`). */
export class ControllerUnreachableError extends UpstreamError implements FleetCoded {
  readonly bodyCode = "controller_unreachable";
}

/** `controller.url` is empty (503 `controller_unconfigured`). */
export class ControllerUnconfiguredError extends UnavailableError implements FleetCoded {
  readonly bodyCode = "controller_unconfigured";
  constructor() {
    super("controller not configured");
  }
}

/** A node name the controller does not know (404 `unknown_node`). */
export class UnknownNodeError extends NotFoundError implements FleetCoded {
  readonly bodyCode = "unknown_node";
  constructor(name: string) {
    super(`unknown node ${JSON.stringify(name)}`);
  }
}

/** True when `e` carries a fleet body code. */
export function isFleetCoded(e: unknown): e is Error & FleetCoded & { code: string } {
  return e instanceof Error && typeof (e as Partial<FleetCoded>).bodyCode === "string";
}
