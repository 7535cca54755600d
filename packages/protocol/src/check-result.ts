/**
 * CheckResult (spec §2.5): the 200 body of the controller's POST /api/v1/diagnostics, also relayed by the
 * console (POST /api/v1/fleet/check) and printed by `svc check`. `success` false means the check ran and failed.
 * `duration` and every duration inside `details` are integer nanoseconds.
 */
export interface CheckResult {
  type: string;
  success: boolean;
  /** source node name */
  source: string;
  /** node name, or the external target's name (never its address) */
  destination: string;
  sourceZone: string;
  destZone: string;
  duration: number;
  details: Record<string, unknown>;
  /** only when the agent reported one */
  error?: string;
  /** RFC 3339, the agent's clock else the controller's; beyond the spec: every 2.5 controller sets it */
  timestamp?: string;
}
