export { ManualClock } from "./manual-clock.ts";
