/**
 * Which live agents would run a check definition (spec §4.3, §7): the agents the source selection picks that
 * advertise `external-checks` and the check type's plane (an agent listing no `plane:` entry runs every plane,
 * spec §2.2). The agents' external allowlists are not in the topology snapshot, so they are not judged here
 * (docs/decisions.md). Pure: the caller brings the controller's snapshot.
 */
import type { CheckProjection, CheckType, SourceSelection } from "@svc/contract";
import type { TopologyAgent } from "@svc/protocol";

/** The parts of a definition the projection reads. */
export interface ProjectionInput {
  type: CheckType;
  params: Record<string, unknown>;
  sources: SourceSelection;
  /** kind of the definition's target; undefined for an unknown target */
  targetKind: "host" | "url" | undefined;
}

/** Why a definition cannot run on any target kind, or undefined when its type and target agree. */
export function shapeProblem(input: Omit<ProjectionInput, "sources">): string | undefined {
  if (input.targetKind === undefined) return "targetId: no such target";
  if (input.type === "http" && input.targetKind !== "url") return "an http check needs a URL target";
  if (input.type !== "http" && input.targetKind !== "host")
    return `a ${input.type} check needs a host[:port] target, not a URL`;
  if (input.type === "dns" && (typeof input.params.query !== "string" || input.params.query === ""))
    return "a dns check needs params.query, the name asked of the target resolver";
  return undefined;
}

const runsPlane = (a: TopologyAgent, type: string) =>
  !a.capabilities.some((c) => c.startsWith("plane:")) || a.capabilities.includes(`plane:${type}`);

/** The agents of `agents` that would run `input`, and the reasons others (or all) would not. */
export function project(input: ProjectionInput, agents: readonly TopologyAgent[]): CheckProjection {
  const problem = shapeProblem(input);
  if (problem) return { runnable: false, agents: [], reasons: [problem] };
  const { nodes, zones } = input.sources;
  const all = nodes.length === 0 && zones.length === 0;
  const picked = agents.filter((a) => all || nodes.includes(a.nodeName) || zones.includes(a.zone));
  const reasons: string[] = [];
  if (picked.length === 0)
    reasons.push(all ? "no live agents" : "no live agent on the selected nodes or zones");
  const noExternal = picked.filter((a) => !a.capabilities.includes("external-checks"));
  if (noExternal.length > 0)
    reasons.push(`${noExternal.length} selected agent(s) lack the external-checks capability`);
  const able = picked.filter((a) => a.capabilities.includes("external-checks"));
  const noPlane = able.filter((a) => !runsPlane(a, input.type));
  if (noPlane.length > 0)
    reasons.push(
      `${noPlane.length} selected agent(s) do not run ${input.type} (checkers.${input.type}.enabled=false)`,
    );
  const run = able
    .filter((a) => runsPlane(a, input.type))
    .sort((a, b) => a.nodeName.localeCompare(b.nodeName) || a.id.localeCompare(b.id))
    .map((a) => ({ id: a.id, nodeName: a.nodeName, zone: a.zone }));
  return { runnable: run.length > 0, agents: run, reasons };
}
