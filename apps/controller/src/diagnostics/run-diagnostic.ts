import { performance } from "node:perf_hooks";
import { checkPort, EXTERNAL_CHECKS_CAPABILITY, EXTERNAL_ZONE } from "@svc/protocol";
import {
  type ControllerError,
  NotFoundError,
  NotLeaderError,
  TimeoutError,
  UnsupportedError,
  UpstreamError,
} from "../errors.ts";
import type { RegisteredAgent } from "../registry/agent.ts";
import type { AgentRegistry } from "../registry/registry.ts";
import type { TaskDispatcher } from "../tasks/task-dispatcher.ts";
import { buildCheckResult, type CheckParties, type CheckResult } from "./check-result.ts";
import type { DiagnosticRequest } from "./request.ts";

/** Value of the `result` label of `controller_diagnostics_total` the outcome counts as when delivered. */
export type DiagnosticMetricResult = "success" | "fail" | "error" | "timeout";

/** What the route answers: the CheckResult, or the error (api/error-handler.ts picks its status). */
export type DiagnosticOutcome =
  | { result: CheckResult; metric: "success" | "fail"; error?: undefined }
  | { error: ControllerError; metric: "error" | "timeout"; result?: CheckResult };

export interface DiagnosticDeps {
  registry: AgentRegistry;
  dispatcher: TaskDispatcher;
  isLeader: () => boolean;
  /** clock, ms since epoch */
  now?: () => number;
}

/** Share of the overall timeout the agent gets for the probe itself; the rest covers dispatch and reporting. */
const AGENT_SHARE = 0.9;

function agentOnNode(registry: AgentRegistry, node: string): RegisteredAgent | undefined {
  return registry.list().find((a) => a.nodeName === node);
}

function refuse(error: ControllerError, result?: CheckResult): DiagnosticOutcome {
  const outcome: DiagnosticOutcome = { error, metric: error instanceof TimeoutError ? "timeout" : "error" };
  if (result !== undefined) outcome.result = result;
  return outcome;
}

/**
 * Runs one validated diagnostic (spec §4.2) after the leader check: 404 no agent on the source (or, for a node
 * destination, destination) node; 501 when the source lists planes without `plane:<type>` (an agent listing no
 * planes runs every plane), or lacks `external-checks` for an external destination; dispatch to the source
 * agent (the port from checkPort: an external destination's `destinationPort`, else the check's default; a node
 * destination's podIP at its agent's reported httpPort for tcp / udpPort for udp and pmtu, 0 = the agent's default); 404 no active task stream, 502 other dispatch failures, 504 timeout; 503 when
 * this replica is no longer the leader once the dispatch ends (the result, if any, is still returned in
 * `result` for the events).
 */
export async function runDiagnostic(
  req: DiagnosticRequest,
  timeoutMs: number,
  deps: DiagnosticDeps,
): Promise<DiagnosticOutcome> {
  const now = deps.now ?? Date.now;
  const src = agentOnNode(deps.registry, req.source);
  if (src === undefined) return refuse(new NotFoundError(`no agent on source node ${req.source}`));
  const planes = src.capabilities.filter((c) => c.startsWith("plane:"));
  if (planes.length > 0 && !planes.includes(`plane:${req.type}`)) {
    const older = req.type === "pmtu" ? " or the agent is older than 2.5.0" : "";
    return refuse(
      new UnsupportedError(
        `source agent on node ${req.source} does not run ${req.type} probes ` +
          `(checkers.${req.type}.enabled=false${older})`,
      ),
    );
  }
  let address = req.destinationAddress;
  let port = checkPort(req.type, { kind: "external", port: req.destinationPort });
  let destZone = EXTERNAL_ZONE;
  if (req.destinationKind === "external") {
    if (!src.capabilities.includes(EXTERNAL_CHECKS_CAPABILITY)) {
      return refuse(
        new UnsupportedError(
          `source agent on node ${req.source} lacks the ${EXTERNAL_CHECKS_CAPABILITY} capability ` +
            "(checkers.external.enabled=false or the agent is older than 1.6.0)",
        ),
      );
    }
  } else {
    const dst = agentOnNode(deps.registry, req.destination);
    if (dst === undefined)
      return refuse(new NotFoundError(`no agent on destination node ${req.destination}`));
    address = dst.address;
    destZone = dst.zone;
    port = checkPort(req.type, { kind: "node", httpPort: dst.httpPort, udpPort: dst.udpPort });
  }
  const parties: CheckParties = {
    type: req.type,
    source: req.source,
    destination: req.destination,
    sourceZone: src.zone,
    destZone,
  };
  const started = performance.now();
  const outcome = await deps.dispatcher.dispatch(
    src.id,
    {
      type: req.type,
      destination: req.destination,
      destination_kind: req.destinationKind,
      address,
      port,
      timeout_ns: Math.floor(timeoutMs * AGENT_SHARE) * 1_000_000,
      params_json: Object.keys(req.params).length > 0 ? JSON.stringify(req.params) : "",
    },
    timeoutMs,
  );
  const result = outcome.ok
    ? buildCheckResult(parties, outcome.result, (performance.now() - started) * 1e6, now())
    : undefined;
  if (!deps.isLeader()) {
    return refuse(new NotLeaderError("not the leader: leadership lost mid-check"), result);
  }
  if (outcome.ok && result !== undefined) {
    return { result, metric: result.success ? "success" : "fail" };
  }
  if (outcome.ok) return refuse(new UpstreamError("no result"));
  switch (outcome.failure.kind) {
    case "no-stream":
      return refuse(new NotFoundError(`${outcome.failure.message} (node ${req.source})`));
    case "timeout":
      return refuse(new TimeoutError(`diagnostic timed out: ${outcome.failure.message}`));
    default:
      return refuse(new UpstreamError(`dispatch failed: ${outcome.failure.message}`));
  }
}
