import type { TopologySection } from "@svc/core";
import type { PlanOptions } from "./types.ts";

/** The planner's options from the validated `topology` config section. */
export function planOptionsFromConfig(topology: TopologySection): PlanOptions {
  return { mode: topology.mode, ...topology.sparse };
}

/** Throws RangeError, naming the config key, for options outside their spec §8.2 ranges. */
export function validateOptions(opts: PlanOptions): void {
  if (opts.mode !== "full" && opts.mode !== "sparse") {
    throw new RangeError(`topology.mode: must be full or sparse, got ${String(opts.mode)}`);
  }
  if (!Number.isInteger(opts.ringDegree) || opts.ringDegree < 1) {
    throw new RangeError(
      `topology.sparse.ringDegree: must be an integer of at least 1, got ${opts.ringDegree}`,
    );
  }
  if (!Number.isInteger(opts.zoneChords) || opts.zoneChords < 0 || opts.zoneChords > 64) {
    throw new RangeError(`topology.sparse.zoneChords: must be an integer 0-64, got ${opts.zoneChords}`);
  }
  if (!Number.isInteger(opts.autoThreshold) || opts.autoThreshold < 0) {
    throw new RangeError(
      `topology.sparse.autoThreshold: must be a non-negative integer, got ${opts.autoThreshold}`,
    );
  }
}
