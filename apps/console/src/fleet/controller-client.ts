/**
 * The console's client of the controller HTTP API (spec §4.2): the topology snapshot and one-shot diagnostics.
 * Every call is bounded by `controller.timeout`; diagnostics get their own bound (the check's timeout plus a margin),
 * since the controller holds the request open while the agent probes.
 */
import { PAIR_STATE_PLANES, type PairStatesBody, type TopologySnapshot } from "@svc/protocol";
import { ControllerUnconfiguredError, ControllerUnreachableError } from "./fleet-errors.ts";

/** The controller's answer to POST /api/v1/diagnostics, passed through as it came. */
export interface DiagnosticsAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Address and timeout of the controller. */
export interface ControllerClientOptions {
  /** base URL; empty = no controller configured */
  url: string;
  timeoutMs: number;
}

const CHECK_TIMEOUT_S = 60;

/** Reads the controller; an unreachable or garbled controller is ControllerUnreachableError (502). */
export class ControllerClient {
  private readonly base: string;

  constructor(private readonly opts: ControllerClientOptions) {
    this.base = opts.url.replace(/\/+$/, "");
  }

  /** false when no controller URL is configured (every call throws ControllerUnconfiguredError) */
  get configured(): boolean {
    return this.base !== "";
  }

  /** GET /api/v1/topology. A non-200 (e.g. 503 `not the leader`) counts as unreachable. */
  async topology(): Promise<TopologySnapshot> {
    const res = await this.send("/api/v1/topology", { method: "GET" }, this.opts.timeoutMs);
    if (res.status !== 200)
      throw new ControllerUnreachableError(`controller answered ${res.status}: ${res.text.slice(0, 200)}`);
    try {
      const body = JSON.parse(res.text) as TopologySnapshot;
      if (!Array.isArray(body.nodes) || !Array.isArray(body.agents)) throw new Error("shape");
      return body;
    } catch {
      throw new ControllerUnreachableError("controller topology is not a topology snapshot");
    }
  }

  /**
   * GET /api/v1/pair-states: the pairs in trouble now as the agents report them to the controller. undefined when
   * the controller does not serve it (404: older than this console) or answers anything else: the console then
   * reads the pair state from the metrics alone. Entries that are not a pair state are left out.
   */
  async pairStates(): Promise<PairStatesBody | undefined> {
    let res: DiagnosticsAnswer;
    try {
      res = await this.send("/api/v1/pair-states", { method: "GET" }, this.opts.timeoutMs);
    } catch {
      return undefined;
    }
    if (res.status !== 200) return undefined;
    try {
      return pairStatesBody(JSON.parse(res.text));
    } catch {
      return undefined;
    }
  }

  /** POST /api/v1/diagnostics with `body`; resolves with whatever status the controller answered. */
  async diagnostics(body: unknown): Promise<DiagnosticsAnswer> {
    return this.send(
      `/api/v1/diagnostics?timeout=${CHECK_TIMEOUT_S}`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      CHECK_TIMEOUT_S * 1000 + this.opts.timeoutMs,
    );
  }

  /**
   * PUT /api/v1/external-checks with the whole assignment (spec §4.2). Resolves with the controller's counts;
   * any other answer than 200 (503 `not the leader`, 400, 413) is ControllerUnreachableError naming it.
   */
  async putExternalChecks(body: unknown): Promise<{ agents: number; changed: number; unknown: string[] }> {
    const res = await this.send(
      "/api/v1/external-checks",
      { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      this.opts.timeoutMs,
    );
    if (res.status !== 200)
      throw new ControllerUnreachableError(`controller answered ${res.status}: ${res.text.slice(0, 200)}`);
    return JSON.parse(res.text) as { agents: number; changed: number; unknown: string[] };
  }

  private async send(path: string, init: RequestInit, timeoutMs: number): Promise<DiagnosticsAnswer> {
    if (this.base === "") throw new ControllerUnconfiguredError();
    try {
      const res = await fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      return {
        status: res.status,
        contentType: res.headers.get("content-type") ?? "",
        text: await res.text(),
      };
    } catch (e) {
      const why = e instanceof Error && e.name === "TimeoutError" ? "timed out" : "unreachable";
      throw new ControllerUnreachableError(`controller ${why}`);
    }
  }
}

const PLANES = new Set<string>(PAIR_STATE_PLANES);

/** The pair states of a parsed body; throws when it is not one. */
function pairStatesBody(raw: unknown): PairStatesBody {
  const b = raw as Partial<PairStatesBody> | null;
  if (b === null || typeof b !== "object" || !Array.isArray(b.sources) || !Array.isArray(b.problems))
    throw new Error("shape");
  return {
    sources: b.sources.filter((s): s is string => typeof s === "string"),
    problems: b.problems.filter(
      (p) =>
        p !== null &&
        typeof p === "object" &&
        typeof p.source === "string" &&
        typeof p.destination === "string" &&
        PLANES.has(p.plane) &&
        typeof p.ratio === "number" &&
        p.ratio > 0 &&
        p.ratio <= 1,
    ),
  };
}
