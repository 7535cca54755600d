export { changedSources } from "./diff.ts";
export { planOptionsFromConfig, validateOptions } from "./options.ts";
export { planProbes } from "./plan.ts";
export { planFromJson, plannedTargets, planToJson } from "./plan-json.ts";
export { PlanState } from "./plan-state.ts";
export type { PlanNode, PlanOptions, ProbePlan } from "./types.ts";
