import type { TaskMessage } from "@svc/protocol";
import type { PolicyDecision } from "../external/target-policy.ts";
import type { TaskOutcome } from "./execute-task.ts";

/**
 * Decides whether a one-shot diagnostic to an external destination may probe (the source agent's
 * `checkers.external` allowlist, spec §2.4/§4.2), counting a refusal like a continuous check's; e.g.
 * ExternalCheckRunner.admitDiagnostic.
 */
export type AdmitExternal = (task: TaskMessage) => Promise<PolicyDecision>;

/** A task cleared to run (an external one aimed at the admitted address), or the outcome of its refusal. */
export type GateResult = { task: TaskMessage } | { refused: TaskOutcome };

/**
 * Gates one task before any packet is sent. Node destinations pass unchanged. An external destination runs only
 * when `admit` admits it, and then at the admitted (resolved) address, so the probe cannot resolve a name again to
 * somewhere else; without `admit` (no external checker in this agent) it is refused. A refusal is a failed result
 * whose error names the reason (`disabled`, `resolve`, `cidr`) and why.
 */
export async function gateExternalTask(
  task: TaskMessage,
  admit: AdmitExternal | undefined,
): Promise<GateResult> {
  if (task.destination_kind !== "external") return { task };
  if (admit === undefined) {
    return refused("refused by checkers.external (disabled): no external checker in this agent");
  }
  const decision = await admit(task);
  if (!decision.ok) return refused(`refused by checkers.external (${decision.reason}): ${decision.detail}`);
  return { task: { ...task, address: decision.address } };
}

function refused(error: string): GateResult {
  return { refused: { success: false, error } };
}
