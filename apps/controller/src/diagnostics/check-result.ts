import type { TaskResultMessage, CheckResult as WireCheckResult } from "@svc/protocol";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../api/json-body.ts";

/** CheckResult (spec §2.5) as this controller answers it: always with `timestamp`. */
export type CheckResult = WireCheckResult & { timestamp: string };

/** Who was probed, as the controller resolved it. */
export interface CheckParties {
  type: string;
  source: string;
  destination: string;
  sourceZone: string;
  destZone: string;
}

function parseDetails(json: string): Record<string, unknown> | undefined {
  // an agent's payload nested too deep to answer (JSON.stringify recurses) counts as unparseable
  if (json === "" || jsonDepthExceeds(json, MAX_JSON_DEPTH)) return undefined;
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the CheckResult from the agent's TaskResult. With a payload (`details_json`, a JSON object) its object
 * is `details` verbatim. Without one (empty or unparseable), the result is built from the task: type, source,
 * destination, zones, success, error, timestamp, with `details` {} and `duration` the agent's, else the
 * controller-measured `elapsedNs`. Timestamp: the agent's clock when it reported one, else `nowMs`.
 */
export function buildCheckResult(
  parties: CheckParties,
  r: TaskResultMessage,
  elapsedNs: number,
  nowMs: number,
): CheckResult {
  const details = parseDetails(r.details_json);
  const duration = r.duration_ns > 0 ? Math.round(r.duration_ns) : Math.round(elapsedNs);
  const tsMs = r.timestamp_unix_ns > 0 ? Math.floor(r.timestamp_unix_ns / 1_000_000) : nowMs;
  const result: CheckResult = {
    type: parties.type,
    success: r.success,
    source: parties.source,
    destination: parties.destination,
    sourceZone: parties.sourceZone,
    destZone: parties.destZone,
    duration,
    details: details ?? {},
    timestamp: new Date(tsMs).toISOString(),
  };
  if (r.error !== "") result.error = r.error;
  return result;
}
