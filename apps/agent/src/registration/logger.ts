/** The logging surface the registration client uses (defined once in @svc/core). */
export type { BasicLogger as Logger } from "@svc/core";
export { silentLogger } from "@svc/core";
