export * from "./assignments.ts";
export * from "./external-check-service.ts";
export * from "./external-checks-routes.ts";
export * from "./spec.ts";
export * from "./validate-body.ts";
