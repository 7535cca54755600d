export * from "./backoff.ts";
export * from "./bearer.ts";
export * from "./clock.ts";
export * from "./controller-channel.ts";
export * from "./pair-state-reporter.ts";
export * from "./reconnecting-stream.ts";
