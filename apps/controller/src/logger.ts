/** The logging surface the controller uses (defined once in @svc/core). */
export type { BasicLogger as Logger } from "@svc/core";
export { silentLogger } from "@svc/core";
