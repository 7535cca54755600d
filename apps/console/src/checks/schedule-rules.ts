/**
 * Which schedule kinds can run which check types, and the refusals a definition write owes its schedules (422 for
 * an edit leaving an enabled schedule unable to run, 409 for deleting a scheduled definition). Apart from
 * schedules.ts so the catalog can use them without an import cycle.
 */
import { ConflictError, UnprocessableError } from "../errors.ts";
import type { SqlExecutor } from "../store/db.ts";
import { num } from "../store/rows.ts";

/** Check types a one-shot diagnostic can send to an external target (spec §4.2). */
const EXTERNAL_DIAGNOSTIC_TYPES = new Set(["tcp", "icmp"]);

/** Why `kind` cannot run a definition of `type`, or undefined. */
export function kindProblem(kind: string, type: string): string | undefined {
  if (kind === "check" && !EXTERNAL_DIAGNOSTIC_TYPES.has(type))
    return `a ${type} check cannot run as a one-shot diagnostic to an external target (tcp and icmp can; use the definition's continuous check, or kind mtr)`;
  return undefined;
}

/** Refuses a definition change that would leave an enabled schedule of it unable to run (422). */
export async function checkSchedulesStillRun(
  tx: SqlExecutor,
  definitionId: string,
  newType: string,
): Promise<void> {
  for (const r of await tx.query("SELECT name, kind FROM schedules WHERE definition_id = $1 AND enabled", [
    definitionId,
  ])) {
    const why = kindProblem(String(r.kind), newType);
    if (why) throw new UnprocessableError(`schedule ${String(r.name)} could no longer run: ${why}`);
  }
}

/** Refuses deleting a definition a schedule uses (409). */
export async function refuseIfScheduled(tx: SqlExecutor, definitionId: string): Promise<void> {
  const [r] = await tx.query<{ n: unknown }>("SELECT count(*) AS n FROM schedules WHERE definition_id = $1", [
    definitionId,
  ]);
  if (num(r?.n) > 0) throw new ConflictError(`the check definition is used by ${num(r?.n)} schedule(s)`);
}
