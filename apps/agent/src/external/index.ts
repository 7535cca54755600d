export * from "./assigned-spec.ts";
export * from "./external-check-runner.ts";
export * from "./external-metrics.ts";
export * from "./run-check.ts";
export * from "./target-policy.ts";
