/**
 * @svc/localize: where is the fault. Planned pairs and their per-protocol states in, ranked suspects with evidence
 * out; no I/O, no clock, deterministic (docs/decisions.md "Where is the fault").
 */
export { type LocalizeOptions, localize } from "./localize.ts";
export { Observations, observe } from "./observations.ts";
export * from "./types.ts";
